#pragma once
// The numbers behind each export view, as .npy or .csv bytes (../shared/CLI_CONTRACT.md):
//   heatmap, one head:   .npy [T, T]                         .csv query\key table
//   heatmap, all heads:  .npy [n_layers, n_heads, T, T]      .csv one query\key table per head of
//                                                             the layer, in head order, separated
//                                                             by an empty line
//   difference:          .npy [H, H]                         .csv head\head table
//   distance:            .npy [H, H]                         .csv head\head table
//   sweep:               .npy [n_counts, 8] columns as the CSV header
// The .json of every view is the object `headscope-cli maps` writes (core/export/maps_json.h).
#include <string>
#include <vector>

#include "core/analysis/head_sweep.h"
#include "core/analysis/run_analysis.h"

namespace hs {

// head >= 0: that head of `layer`; head < 0: see above. layer/head must be valid.
std::string attention_npy(const AttentionRun& run, int layer, int head);
std::string attention_csv(const AttentionRun& run, int layer, int head);

// The head pairs of `layer` (the analysis's), [H, H]: mean |A_a - A_b| over cells (difference) or
// mean total variation per query row (distance).
std::string pairs_npy(const RunAnalysis& analysis, int layer, PairMeasure measure);
std::string pairs_csv(const RunAnalysis& analysis, int layer, PairMeasure measure);

// The sweep columns: n_heads, d_head, param_count, mean_head_difference, mean_entropy,
// mean_score_rank, mean_effective_rank, mean_head_distance. The head measures have no value at
// one head (no pair): NaN in the .npy, an empty field in the .csv.
std::string sweep_npy(const std::vector<SweepPoint>& points);
std::string sweep_csv(const std::vector<SweepPoint>& points);

}  // namespace hs
