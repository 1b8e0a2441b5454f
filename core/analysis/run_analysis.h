#pragma once
// The analysis of one run: the single pipeline that the app's worker, `headscope-cli maps` and
// `headscope-cli export` all call. analyse() prepares the request, chooses whole maps or
// long-input mode by one rule (long_input.h), runs the engine and derives what every view reads:
// head differences, averages, largest weights, entropies, singular values and ranks. The result
// is immutable and handed out as a shared pointer, so a copy never copies maps; the head-count
// sweep is kept beside it (sweep_analysis.h), since it depends on fewer inputs and takes longer.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_reach.h"
#include "core/analysis/head_roles.h"
#include "core/model/model_request.h"

namespace hs {

class AnalysisCache;
class CheckpointCache;
struct PrefixCache;
class Observer;

struct HeadSpectrum {
  // Of the score matrix before the mask, S_h = q_h k_g^T / sqrt(d_head), largest first. [T];
  // empty when skipped. Its rank is what a head's width limits: at most d_head.
  Vec singular_values;
  int score_rank = 0;        // numerical rank of S_h (<= d_head)
  int masked_rank = -1;      // causal / windowed: rank with the masked cells as 0 (can pass d_head); -1: no mask
  float effective_rank = 0;  // exp(entropy of normalised singular values)
  float mean_entropy = 0;    // mean row entropy of A_h (nats)
};

// Whole maps or long-input mode.
enum class MapMode {
  automatic,   // the one rule (display_size_for): what the app and the CLI do by default
  whole,       // whole T x T maps (still within the engine's memory limit)
  long_input,  // block maxima of `display_size` cells per side (0: the rule's size)
};

// What a run will make, known before the engine runs (after tokenizing and loading).
struct MapPlan {
  int64_t tokens = 0;
  int64_t maps = 0;          // [T, T] maps: layers x heads
  int display_size = 0;      // 0: whole maps; else long-input mode with this many cells per side
  std::string reason;        // why long-input mode under the rule ("" when whole maps fit)
  // The whole maps the run keeps: every one (display_size 0), else AnalysisOptions::keep's (long-input
  // mode keeps them exactly beside the block maxima) or none.
  MapSelection kept = MapSelection::all();
};

struct AnalysisOptions {
  int threads = 0;                       // <= 0: all cores
  CheckpointCache* checkpoints = nullptr;  // keeps an open checkpoint between calls (the app)
  MapMode maps = MapMode::automatic;
  int display_size = 0;                  // MapMode::long_input (and a run that keeps only `keep`): cells per side (0: the rule's)
  // The whole maps the caller reads (export --layer L --whole-maps: one layer's, or one head's).
  // Not every map: with MapMode::whole, when the long-input rule or the engine's memory limit would
  // not keep every map whole, the run is in long-input mode and keeps these exactly (run.kept),
  // every other head streamed; the memory limit then counts only them. MapMode::long_input keeps
  // them too; a whole-maps run keeps every map anyway.
  MapSelection keep = MapSelection::all();
  int stream_rows = 0;                   // RunOptions::stream_rows (tests: several blocks at a short T)
  bool spectrum = true;                  // singular values, where spectrum_fits() says they stay quick
  bool reach = true;                     // reachable keys and rows that agree, where reach_fits() says they stay quick
  int repeat = 1;                        // run the engine this many times (timing); the last run is kept
  bool roles = true;                     // head role scores, with the induction probe where the model runs ids
  bool rollout = true;                   // attention rollout (RunAnalysis::rollout); false leaves it empty
  bool induction_probe = true;           // false: induction left unmeasured (the app measures it later: induction_probe.h)
  RoleOptions role_options;
  // Live typing (core/model/prefix_cache.h): the previous run of a causal decoder, whose prefix
  // this run reuses when the input starts the same; the new run is left in it. Used with repeat 1.
  PrefixCache* prefix_cache = nullptr;
  // With prefix_cache: the previous analysis (analysis_cache.h), whose row sums this one reuses
  // for the rows the engine reused; this analysis is left in it.
  AnalysisCache* analysis_cache = nullptr;
  // RunOptions::all_next_tokens: false predicts only after the last token, the rest on request.
  bool all_next_tokens = true;
  // The caller's own hook on the engine (RunOptions::observer), e.g. to keep the next-token logits.
  Observer* observer = nullptr;
  // Sees the plan before the engine runs and may throw to refuse it at once (the CLI does when
  // its output needs whole maps that the rule would not keep).
  std::function<void(const MapPlan&)> check_plan;
};

// Where one analysis spent its time (ms), part by part: benchmarks read it (headscope --bench-frames).
struct AnalysisTimes {
  double prepare = 0;   // tokenizing, loading or finding the open checkpoint
  double engine = 0;    // the forward pass(es)
  double pairs = 0;     // head differences and distances
  double average = 0;   // mean map over heads
  double per_head = 0;  // largest weights, entropies, singular values
  double rollout = 0;   // attention rollout
  double roles = 0;     // role scores (and the induction probe when asked)
};

// Whole maps: per-query-row sums that the numbers above add up, kept so that the next analysis of
// a causal decoder that reused this run's first P tokens (analysis_cache.h: rows 0 .. P-1
// of every map unchanged) computes only rows P .. T-1. The totals are summed over rows in order
// either way, so a reusing analysis gives the numbers of a whole one (rollout: within 1e-6).
struct RowSums {
  std::vector<std::vector<std::vector<double>>> pair;     // [layer][pair a < b, row-major][row i]: sum_k |A_a - A_b|(i, k)
  std::vector<std::vector<std::vector<double>>> entropy;  // [layer][head][row i]: -sum_k A(i, k) log A(i, k), 0 log 0 = 0
  std::vector<Map> rollout;  // [layer] rollout through layers 0 .. l, [T, T] (kept only for a prefix cache)
};

struct RunAnalysis {
  ModelRequest request;  // what produced this
  AttentionRun run;      // tokens, info, attention [layer][head] [T, T] (long-input: block maxima)
  std::vector<Map> difference;                      // [layer] -> [H, H] mean |A_a - A_b| over cells
  std::vector<Map> distance;                        // [layer] -> [H, H] mean total variation per query row, in [0, 1]
  int distance_rows = 0;                            // query rows the distance averages: T, or a sample in long-input mode
  std::vector<std::vector<HeadSpectrum>> spectrum;  // [layer][head]
  // [layer][head] reachable keys and rows that agree (head_reach.h); empty when not computed
  // (AnalysisOptions::reach off, long-input mode, past reach_fits, maps from a file).
  std::vector<std::vector<HeadReach>> reach;
  std::vector<float> layer_max;                     // largest attention weight per layer
  std::vector<float> layer_max_skip_first;          // the same without key column 0
  float difference_max = 0;                         // largest head difference over all layers
  float distance_max = 0;                           // largest head distance over all layers
  std::vector<Map> average;                         // [layer] -> [T, T] mean over heads (rows sum to 1)
  // Attention rollout through every layer with the residual identity (rollout.h): [T, T], rows sum
  // to 1. Empty in long-input mode and past kRolloutMaxTokens (L products of [T, T] maps).
  Map rollout;
  // Heatmap axis labels: the tokens, or in long-input mode one "i-j" token range per block of
  // run.map_factor tokens, matching the display maps' rows and columns.
  std::vector<std::string> map_labels;
  std::string long_input_reason;  // why long-input mode ("3000 tokens, more than 2048"); "" for whole maps
  std::string long_input_note;    // long-input mode: what the maps show and what is off
  HeadRoles roles;                // [layer][head] role scores and labels (head_roles.h)
  std::vector<double> engine_ms;  // engine time of each run (options.repeat of them)
  int reused_tokens = -1;         // prefix tokens the engine took from AnalysisOptions::prefix_cache (-1: a whole run)
  double compute_ms = 0;          // the whole analysis, preparing included
  AnalysisTimes times;            // compute_ms part by part
  RowSums row_sums;               // whole maps: what the next analysis on a longer input reuses

  bool long_input() const { return run.compact(); }
  // Token index <-> row/column of the maps (the same for whole maps; blocks of run.map_factor
  // tokens in long-input mode). -1 stays -1.
  int map_index(int token) const;
  int map_token(int index) const;
};

// Attention rollout is computed up to this many tokens (each layer is a T^3 product).
constexpr int kRolloutMaxTokens = 512;

// Long-input mode: the head distance averages the exact rows of this many evenly spaced queries
// (whole maps: every query).
constexpr int kDistanceSampleRows = 128;

// heads --null N: the role scores (options.role_options, its probes too) of `models` random-weight
// models of the request's shape, pooled (head_roles.h's NullRoleScores). A Llama-family checkpoint:
// copies drawn as core/model/random_weights.h says, with seeds seed .. seed + models - 1, each run on
// run.token_ids (the tokens the loaded model read); the synthetic layer: the same layer with those
// seeds (its own initialisation, synthetic_model.h). Anything else (--weights, --attention, GPT-2,
// encoders) throws InputError. Cost: models x (1 + probe seeds) forward passes, plus each copy's draws.
NullRoleScores null_head_roles(const ModelRequest& request, const AttentionRun& run, int models, uint64_t seed,
                               const AnalysisOptions& options = {});

// Throws hs::Error (InputError, FormatError, IoError) for a bad request or file.
std::shared_ptr<const RunAnalysis> analyse(const ModelRequest& request, const AnalysisOptions& options = {});

// The same numbers for a run made elsewhere (a test's hand-made maps, maps read from a file).
std::shared_ptr<const RunAnalysis> analyse_run(AttentionRun run, ModelRequest request = {});

}  // namespace hs
