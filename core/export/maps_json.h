#pragma once
// The JSON object `headscope-cli maps` writes (docs/cli-contract.md): tokens, token_ids,
// config, param_count, attention [layer][head][query][key], head_difference [layer][head][head],
// head_distance [layer][head][head] (mean total variation distance between two heads' rows),
// head_clusters [layer] {order, merges [a, b, distance, size]} (head_clustering.h),
// reachable_keys [layer][head] -> sorted key indices (core/analysis/head_reach.h, when computed),
// attention_rollout [T][T] (core/analysis/rollout.h), head_roles (core/analysis/head_roles.h), output [T][d_model], and optionally timing.
// In long-input mode (maps --long-input --json) "attention" gives way to "long_input": block size,
// display size, block labels, exact head_numbers [layer][head] and block_maxima [layer][head][P][P],
// the whole maps the run kept (AnalysisOptions::keep) as kept_maps {layer, heads, attention
// [head][query][key]}, and left_out: which heads' whole maps the JSON does not hold, in words.
#include <optional>
#include <ostream>
#include <string>

#include "core/analysis/head_ablation.h"
#include "core/analysis/run_analysis.h"

namespace hs {

struct MapsJsonExtras {
  std::optional<double> compute_ms_median;  // adds "timing": {"compute_ms_median": M}
  int threads = 0;
  int repeat = 0;
  // >= 0: attention, head_difference, head_distance and head_clusters hold this layer alone, and
  // "layers": [only_layer] says which (export --layer L). -1: every layer.
  int only_layer = -1;
  // Adds "head_ablation": {"mode", "base_loss", "delta_loss" [layer][head] (null: not run)}.
  const HeadAblation* ablation = nullptr;
};

// The "head_roles" object (also what `headscope-cli heads --json` writes): the role names, their
// definitions, the settings, the probe, scores {role: [layer][head]} (null: not measured) and
// each head's label.
void write_head_roles_json(std::ostream& out, const HeadRoles& roles);

// head_difference comes from the analysis (computed once, as every view reads it).
void write_maps_json(std::ostream& out, const RunAnalysis& analysis, const MapsJsonExtras& extras = {});

}  // namespace hs
