#pragma once
// What each head does: role scores in [0, 1] for every layer x head, measured on attention maps
// (TransformerLens' head detectors, done for every head at once), and the induction probe.
//
// Visible keys. A query i sees the keys its mask allows: every key (no mask); j <= i (causal);
// |i - j| <= W (window W), or i - W <= j <= i (causal window). Masked cells hold exactly 0, so
// every sum below may run over all keys. A row is "informative" when it sees at least two keys:
// a causal row 0 (one key, weight 1) says nothing about what a head does and is left out.
//
// The scores of one head, each a mean over query rows (NaN: not measured, written as null):
//   previous   mean over i >= 1 of A[i][i-1]
//   first      mean over i >= 1 of A[i][0] (the attention sink)
//   bos        mean over i >= 1 of the weight on keys holding the BOS id (NaN: no BOS in the ids).
//              With BOS at position 0 only (llama2.c, Llama, GPT-2 with its BOS), bos equals first
//              exactly and the label says "first" (it wins the tie): bos differs only where BOS
//              also occurs later, or not at position 0.
//   self       mean over informative rows of A[i][i]
//   local      mean over informative rows of sum_{|i-j| < w} A[i][j] (w = local_window keys: the
//              query and the w - 1 nearest keys on each side the mask lets it see)
//   duplicate  mean over rows i with an earlier j < i holding the same token of the weight on those
//              earlier copies (NaN: no token repeats)
//   broadness  mean over informative rows of H_i / log(visible keys of i), H_i the row entropy in
//              nats: 1 for uniform attention over what the row sees, 0 for one key
//   induction  on the probe [BOS] r_1..r_n r_1..r_n (n distinct random ids), mean over the second
//              copy's positions p of A[p][p - n + 1], the key just after the earlier occurrence
//              (NaN: the model cannot run a probe, e.g. a raw --input array)
//
// Chance. Every score has a chance level: the score that uniform attention over the keys each
// query may see gets on the same tokens, rows and mask (uniform_role_scores; exact, and cheap: one
// map per mask). Causal, no window, T tokens: previous and first are the mean over i = 1..T-1 of
// 1/(i+1) (about ln(T)/T: 0.29 at T = 8, 0.15 at T = 24), self the same over the informative rows,
// local min(w, i+1)/(i+1), duplicate (copies of i before i)/(i+1), broadness exactly 1, induction
// the mean of 1/(p+1) over the probe's second copy (about 0.01 for 2 x 32 tokens). Without a mask
// each row sees all T keys: 1/T. A label needs its score to clear chance by options.chance_margin
// (strongest_role).
#include <cstdint>
#include <string>
#include <vector>

#include "core/model/model_run.h"
#include "core/util/tensor.h"

namespace hs {

enum class HeadRole { previous, first, bos, self, local, duplicate, induction, broadness };
constexpr int kHeadRoleCount = 8;

// "previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness".
const char* head_role_name(HeadRole role);
// Short sentence for the README, the app and the CLI's legend.
const char* head_role_definition(HeadRole role);
// Every label a head can get (strongest_role): the job roles previous, first, bos, self,
// duplicate and induction, then "local" and "broad" (filters list these; "" is no label).
const std::vector<std::string>& head_labels();
// Parses a name above; throws InputError naming the choices.
HeadRole parse_head_role(const std::string& name);

struct HeadRoleScores {
  float score[kHeadRoleCount];  // indexed by HeadRole; NaN: not measured
  HeadRoleScores();
  float operator[](HeadRole r) const { return score[int(r)]; }
  float& operator[](HeadRole r) { return score[int(r)]; }
};

// True when a and b hold the same scores (NaN equal to NaN).
bool same_role_scores(const HeadRoleScores& a, const HeadRoleScores& b);

// The mask a map was made under (as ModelInfo / AttentionConfig describe it).
struct KeyMask {
  bool causal = false;
  int window = -1;  // -1: none
  bool visible(int query, int key) const;
  int visible_count(int query, int n_keys) const;
};

constexpr int kRoleProbeSeeds = 5;
struct RoleOptions {
  int local_window = 3;       // keys for "local": the query and 2 neighbours each side it may see
  float threshold = 0.4f;     // a head is labelled with its strongest role when the score clears this
  int probe_length = 32;      // n: distinct random tokens, repeated once
  uint64_t probe_seed = 18;
  // Probes (seeds probe_seed, probe_seed + 1, ...): induction is their mean, with a 95% interval.
  // One in the engine's analyses (maps, export and the app, which export the same numbers);
  // kRoleProbeSeeds in headscope-cli heads, the command about the roles.
  int probe_seeds = 1;
  float chance_margin = 0.1f;  // a role labels a head only at chance + this or more
};

// Scores of one head from rows of its map. rows: [R, T], row r is query `queries[r]`
// (whole maps: R = T, queries 0..T-1); token_keys: T ids (or any integer key per token, equal for
// equal tokens; empty: no duplicate or BOS score); bos_id < 0: none. induction stays NaN here.
HeadRoleScores head_role_scores(const Map& rows, const std::vector<int>& queries, const KeyMask& mask,
                                const std::vector<int>& token_keys, int bos_id, const RoleOptions& options = {}, const std::vector<double>* row_entropy = nullptr);

// Whole map [T, T] (rows sum to 1).
HeadRoleScores head_role_scores(const Map& attention, const KeyMask& mask, const std::vector<int>& token_keys,
                                int bos_id, const RoleOptions& options = {});

// The chance level of every score (see "Chance" above): head_role_scores of uniform attention
// over the visible keys of each query in `queries` of a T-token input under `mask`; when
// probe_tokens > 0, induction too, on a probe of that many tokens (odd: with BOS) under the mask.
HeadRoleScores uniform_role_scores(const std::vector<int>& queries, int T, const KeyMask& mask,
                                   const std::vector<int>& token_keys, int bos_id, const RoleOptions& options,
                                   int probe_tokens = 0);

// The induction probe's ids: BOS first when bos_id >= 0, then n ids drawn without repetition
// (SplitMix64 with `seed`) from [0, vocab) skipping bos_id, then the same n ids again.
// Throws InputError when the vocabulary has fewer than n usable ids or n < 2.
std::vector<int> induction_probe_ids(int vocab, int bos_id, int n, uint64_t seed);

// Induction score of one head's whole map [P, P] of the probe above (offset = 1 with BOS, else 0).
float induction_score(const Map& attention, int offset, int n);

// The strongest role of a head, or "" when none clears the threshold. The specific roles
// (previous, first, bos, self, duplicate, induction) are preferred (on a tie the earlier: first
// before bos); then "broad" (broadness at least kBroadLabelMin: near-uniform over what it sees)
// and "local" (local at least kLocalLabelMin, whatever the threshold) name a head none of them
// describes. With `chance`, a role counts only at chance[role] + margin or more (local too;
// broadness not: it measures how close a head is to chance).
constexpr float kBroadLabelMin = 0.8f, kLocalLabelMin = 0.5f;
std::string strongest_role(const HeadRoleScores& s, float threshold, const HeadRoleScores* chance = nullptr,
                           float margin = 0);

// The labelling rule in words, for the legends under the CLI's table and in the app: "a head's
// role is its strongest of ... at or above 0.40 ..., else broad when broadness >= 0.8, else local
// when local >= 0.5, else none"; with margin >= 0, "... each at least its chance level + 0.10 ...".
std::string head_label_rule(float threshold, float margin = -1);

// How tables write a score that was not measured (NaN) and a head without a label: two
// different marks ("-" meant both).
constexpr const char* kNotMeasuredMark = "n/m";
constexpr const char* kNoRoleMark = "none";
// The label as a table writes it: kNoRoleMark for "".
inline const char* head_label_text(const std::string& label) { return label.empty() ? kNoRoleMark : label.c_str(); }

// The null spread (headscope-cli heads --null N; run_analysis.h's null_head_roles): the same
// scores on N random-weight models of the loaded one's shape (core/model/random_weights.h), on the
// same tokens and probes. mean and sd pool every head of every model (sd: the sample standard
// deviation, N x layers x heads - 1 degrees of freedom); layer_mean and layer_sd pool the N x heads
// scores of one layer (a random initialisation treats the heads of a layer alike, but not the
// layers: layer 0 reads the embeddings). NaN where no model measured the role.
struct NullRoleScores {
  int models = 0;      // N; 0: not computed
  uint64_t seed = 0;   // model k is drawn with seed + k
  std::string initialisation;
  HeadRoleScores mean, sd;
  std::vector<HeadRoleScores> layer_mean, layer_sd;  // [layer]
};

struct HeadRoles;
// Pools the role scores of N null models (each a HeadRoles of the same shape) as described above.
NullRoleScores pool_null_roles(const std::vector<HeadRoles>& models, uint64_t seed, std::string initialisation);

// Every head of a model: [layer][head].
struct HeadRoles {
  std::vector<std::vector<HeadRoleScores>> scores;
  std::vector<std::vector<std::string>> label;  // strongest_role of each head
  RoleOptions options;
  bool induction_measured = false;  // the probe ran
  std::vector<int> probe_ids;       // the first probe's token ids (empty when none ran)
  int probe_seeds = 0;              // probes induction is the mean of
  std::vector<std::vector<float>> induction_ci95;  // [layer][head]: half width of its 95% interval (more than one probe)
  int query_rows = 0;               // rows each score averages over (T, or a sample for long inputs)
  std::vector<KeyMask> masks;       // [layer]: the mask each layer's maps were made under
  std::vector<HeadRoleScores> chance;  // [layer]: uniform_role_scores on the same tokens, rows and mask
  NullRoleScores null;              // --null N: the scores of random-weight models (models 0: none)
  // The chance level of `role` for a head of `layer` (NaN: unknown).
  float chance_of(int layer, HeadRole role) const;
  // True when every layer has the same chance levels (one mask for the whole model).
  bool chance_same_everywhere() const;
  // The label rule with this object's threshold and margin.
  std::string label_rule() const;
  bool empty() const { return scores.empty(); }
  int n_layers() const { return int(scores.size()); }
  int n_heads() const { return scores.empty() ? 0 : int(scores[0].size()); }
};

// Heads in the order a table shows them. by: a role's scores (kHeadRoleCount roles), or one of the
// columns below; NaN scores go last either way; ties keep layer, head order. label: only heads
// with this label ("" = every head).
constexpr int kSortByLayer = -1, kSortByHead = -2, kSortByLabel = -3;
struct HeadIndex {
  int layer = 0, head = 0;
};
std::vector<HeadIndex> rank_heads(const HeadRoles& roles, int by, bool descending, const std::string& label = "");

// The mask layer `layer` of a run was made under.
KeyMask layer_key_mask(const ModelInfo& info, int layer);

// Every head's scores on `run` (whole maps, or in long-input mode the exact rows of up to
// `sample_rows` evenly spaced queries), labelled; `probe`, when given, is the same model run on
// `probe_ids` (induction_probe_ids with options.probe_length) and fills the induction score.
// Tokens are told apart by run.token_ids, else by their text. Heads are scored in parallel on up
// to `threads` threads (<= 0: all cores).
// `entropies` ([layer][head][row], whole maps only): each row's -sum_k A log A already summed (as
// this sums it; run_analysis.h's RowSums), so that broadness does not take the logs again.
using RowEntropies = std::vector<std::vector<std::vector<double>>>;
HeadRoles compute_head_roles(const AttentionRun& run, int bos_id, const AttentionRun* probe,
                             const std::vector<int>& probe_ids, const RoleOptions& options = {}, int sample_rows = 128,
                             int threads = 0, const RowEntropies* entropies = nullptr);

}  // namespace hs
