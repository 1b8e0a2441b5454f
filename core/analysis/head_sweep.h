#pragma once
// The head-count sweep: for a fixed d_model and sentence, every head count that divides
// d_model, each averaged over several seeds. It shows what splitting the width costs
// (score rank per head falls to d_head) and what it does not (parameters stay the same).
#include <cstdint>
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
  float mean_reachable_keys = 0;   // mean count of keys some query can make its top key (reachable_keys.h)
};

struct SweepSpec {
  AttentionConfig base;  // d_model, causal, window, temperature; heads are swept
  std::vector<uint64_t> seeds = {0, 1, 2, 3, 4};
};

// Divisors of d_model, ascending: the head counts that split it evenly.
std::vector<int> head_count_divisors(int d_model);

// "" when a sweep of T tokens at this d_model fits kMaxSweepWork, else why not and what would fit.
std::string head_sweep_refusal(int64_t T, int d_model, size_t seeds);

// Throws InputError before running anything when head_sweep_work(...) is over kMaxSweepWork,
// saying why and how many tokens would fit for this d_model.
std::vector<SweepPoint> head_count_sweep(const std::vector<std::string>& tokens, const SweepSpec& spec, int threads = 0);

// The sweep's work in multiply-add-sized steps: for every head count h dividing d_model and every
// seed, random weights (4 d^2 draws), projections (4 T d^2), scores and contexts (2 T^2 d), the
// h x h head differences (h^2 T^2) and two singular-value decompositions of a T x T matrix per
// head (about T^3 each, plus a fixed cost per call), and each head's reachable keys (at most
// T^2 (d_head + 1)^2 for its linear programs).
double head_sweep_work(int64_t tokens, int d_model, size_t seeds);

// About 20 seconds of one core (measured: d_model 64 on 200 tokens is 1.2e10 and took 8 s on two
// cores). What fits: d_model 8 up to 509 tokens, 64 up to 241, 512 up to 75, 1024 up to 34; no
// sentence for d_model 4096 (its random weights alone are 65 x 67 million draws).
constexpr double kMaxSweepWork = 2e10;

}  // namespace hs
