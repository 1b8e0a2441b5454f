#pragma once
// Minimal pairs: two runs of one model on two sentences that differ in a few tokens ("The keys
// to the cabinet are / is"), aligned token by token, and how much each head's attention changed.
#include <string>
#include <vector>

#include "core/model/model_run.h"
#include "core/util/tensor.h"

namespace hs {

// What one position of the alignment holds: a token both sides share, a token of A that B has
// in its place (replaced), or a token only one side has.
enum class AlignOp { same, replaced, deleted, inserted };  // deleted: only in A; inserted: only in B
const char* align_op_name(AlignOp op);

struct AlignStep {
  AlignOp op = AlignOp::same;
  int a = -1;  // token index in A (-1 for inserted)
  int b = -1;  // token index in B (-1 for deleted)
};

struct TokenAlignment {
  std::vector<AlignStep> steps;  // in token order on both sides
  std::vector<int> a_to_b;       // [T_a] the same token's index in B, -1 when changed
  std::vector<int> b_to_a;       // [T_b]
  int changed() const;           // steps that are not `same`
  // The steps with a token on both sides (same and replaced): the rows and columns a difference
  // of the two maps has, in order.
  std::vector<int> paired_steps() const;
};

// The longest common subsequence of the two token sequences (equal entries are the same token)
// becomes the `same` steps; between two of them, the first min(n_a, n_b) tokens of each side are
// paired as replaced and the rest are deleted (A) or inserted (B). A common prefix and suffix are
// matched directly, so only the differing middle costs O(n_a * n_b); a middle past
// kMaxAlignCells cells is refused with an InputError.
constexpr long long kMaxAlignCells = 64LL << 20;
TokenAlignment align_tokens(const std::vector<int>& a, const std::vector<int>& b);

// The keys to align on: token ids when the run has them, else the labels numbered by first
// appearance across both runs (the synthetic model tokenizes into words without ids).
void alignment_keys(const AttentionRun& a, const AttentionRun& b, std::vector<int>& keys_a, std::vector<int>& keys_b);

// How far one query row moved: 0.5 * sum over the alignment's key steps of |A - B|, where a key
// only one side has counts with the other side's weight as 0 (total variation between the two
// rows as distributions over the aligned positions), in [0, 1].
float row_change(const Map& a, int row_a, const Map& b, int row_b, const TokenAlignment& alignment);

struct HeadChange {
  float distance = 0;    // mean row_change over the compared query rows (ContrastResult::query_rows)
  float max_row = 0;     // the largest row_change, and the query step (index into steps) it is at
  int max_row_step = -1;
  float changed_a = 0;   // mean weight those rows of A put on A's changed tokens (replaced + deleted)
  float changed_b = 0;   // the same in B (replaced + inserted); changed_b - changed_a: weight moved onto them
};

struct ContrastResult {
  // What differs between A and B: the sentence (one model, a minimal pair) or the model (two
  // models on the same tokens, core/analysis/model_contrast.h; every step is `same`).
  bool models = false;
  TokenAlignment alignment;
  // The query rows every mean is over: the paired steps (a token on both sides, the same or
  // replaced) from first_query_step on, so a change at the end of a causal model's text ("are" /
  // "is") is seen in its own row, and a longer unchanged prefix does not dilute the mean.
  // first_query_step: a causal model's first changed step (its rows before it see the same tokens
  // in A and B and cannot move; steps.size() when nothing changed); 0 for a model without a mask.
  int first_query_step = 0;
  int query_rows = 0;
  std::vector<std::vector<HeadChange>> heads; // [layer][head]
  Map distance_grid() const;                  // [layers, heads] of HeadChange::distance
};

// Both runs must come from one model (same layers and heads) and hold whole maps: long-input
// runs (block maxima) are refused with an InputError saying so.
ContrastResult contrast_runs(const AttentionRun& a, const AttentionRun& b);

// Two models on the same tokens (`a` and `b` hold the same token ids): every head of the first
// `layers` x `heads` ones both runs have, every query row counted (first_query_step 0), and
// `models` set. The runs' checks (tokens, shapes) are model_contrast.h's.
ContrastResult contrast_same_tokens(const AttentionRun& a, const AttentionRun& b, int layers, int heads);

// [layer][head] the head's place when every head is sorted by change, largest first: 1 for the
// most changed; equal changes keep layer, head order.
std::vector<std::vector<int>> change_ranks(const ContrastResult& contrast);

// B - A over the paired steps ([P, P], P = paired_steps().size(), row = query, col = key): the
// rows and columns of tokens only one side has are left out.
Map difference_map(const Map& a, const Map& b, const TokenAlignment& alignment);

// The paired steps' labels from each side's token labels: "cat", or "are→is" where replaced.
std::vector<std::string> paired_labels(const TokenAlignment& alignment, const std::vector<std::string>& a,
                                       const std::vector<std::string>& b);

}  // namespace hs
