#pragma once
// The head-count sweep: for a fixed d_model and sentence, every head count that divides
// d_model, each averaged over several seeds. It shows what splitting the width costs
// (score rank per head falls to d_head) and what it does not (parameters stay the same).
#include <string>
#include <vector>

#include "core/model/attention_config.h"

namespace hs {

struct SweepPoint {
  int n_heads = 0;
  int d_head = 0;
  int64_t param_count = 0;
  // Means over head pairs (a < b); NaN with one head, where there is no pair to compare.
  float mean_head_difference = 0;  // of diff[a][b], mean |A_a - A_b| over cells
  float mean_head_distance = 0;    // of dist[a][b], mean total variation per query row (scale-free)
  float mean_entropy = 0;          // mean row entropy over heads (nats)
  float mean_score_rank = 0;       // mean numerical rank of S_h = q_h k_h^T before any mask (<= d_head)
  float mean_effective_rank = 0;   // mean effective rank of the attention maps A_h
};

struct SweepSpec {
  AttentionConfig base;  // d_model, causal, window, temperature; heads are swept
  std::vector<uint64_t> seeds = {0, 1, 2, 3, 4};
};

// Divisors of d_model, ascending: the head counts that split it evenly.
std::vector<int> head_count_divisors(int d_model);

std::vector<SweepPoint> head_count_sweep(const std::vector<std::string>& tokens, const SweepSpec& spec, int threads = 0);

}  // namespace hs
