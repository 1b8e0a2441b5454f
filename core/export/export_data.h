#pragma once
// The numbers behind each export view, as .npy or .csv bytes (docs/cli-contract.md):
//   heatmap, one head:   .npy [T, T]                         .csv query\key table
//   heatmap, all heads:  .npy [n_layers, n_heads, T, T]      .csv one query\key table per head of
//                                                             the layer, in head order, separated
//                                                             by an empty line
//   difference:          .npy [H, H]                         .csv head\head table
//   distance:            .npy [H, H]                         .csv head\head table
//   sweep:               .npy [n_counts, 8] columns as the CSV header
//   roles:               .npy [n_layers, n_heads] one role's scores  .csv layer\head table
//                        (NaN / an empty field: not measured); every role (spec.role -1):
//                        .npy [n_roles, n_layers, n_heads]        .csv a table per role
//   rollout:             .npy [T, T]                         .csv query\key table
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
std::string pairs_npy(const RunAnalysis& analysis, int layer);
std::string pairs_csv(const RunAnalysis& analysis, int layer);

// One role's scores [n_layers, n_heads] (head_roles.h): float32, NaN where not measured; the CSV
// has a row per layer ("layer 0", ...) and a column per head ("head 0", ...), empty where not measured.
std::string roles_npy(const HeadRoles& roles, HeadRole role);
std::string roles_csv(const HeadRoles& roles, HeadRole role);
// Every role at once: .npy [n_roles, n_layers, n_heads] in HeadRole order (previous, first, bos,
// self, local, duplicate, induction, broadness); .csv one table per role, its corner cell
// "ROLE layer\head", separated by an empty line.
std::string all_roles_npy(const HeadRoles& roles);
std::string all_roles_csv(const HeadRoles& roles);

// Any [T, T] map with token labels (the rollout): .npy [T, T], .csv query\key table.
std::string map_npy(const Map& map);
std::string map_csv(const Map& map, const std::vector<std::string>& tokens);

// The sweep columns: n_heads, d_head, param_count, mean_head_difference, mean_entropy,
// mean_score_rank, mean_effective_rank, mean_head_distance. The head measures have no value at
// one head (no pair): NaN in the .npy, an empty field in the .csv.
std::string sweep_npy(const std::vector<SweepPoint>& points);
std::string sweep_csv(const std::vector<SweepPoint>& points);

}  // namespace hs
