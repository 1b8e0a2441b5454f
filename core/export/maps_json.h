#pragma once
// The JSON object `headscope-cli maps` writes (../shared/CLI_CONTRACT.md): tokens, token_ids,
// config, param_count, attention [layer][head][query][key], head_difference [layer][head][head],
// output [T][d_model], and optionally timing.
#include <optional>
#include <ostream>
#include <string>

#include "core/model/model_run.h"

namespace hs {

struct MapsJsonExtras {
  std::optional<double> compute_ms_median;  // adds "timing": {"compute_ms_median": M}
  int threads = 0;
  int repeat = 0;
};

void write_maps_json(std::ostream& out, const AttentionRun& run, const MapsJsonExtras& extras = {});

}  // namespace hs
