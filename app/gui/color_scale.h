#pragma once
// Colour scales: how a weight becomes t in [0, 1] before the colormap lookup (which the
// shader does with the shared 256-entry table). Linear is the exporter's rule
// (core/render/colour_scale.h: t = v / max over the maps shown together), so the screen
// matches an export; log and per-row normalised are screen-only views.
#include <string>

#include "app/gui/app_state.h"
#include "core/util/tensor.h"

namespace hs::gui {

struct ScaleRange {
  ScaleMode mode = ScaleMode::linear;
  float lo = 0.0f, hi = 1.0f;  // linear: value range; log: value range (lo > 0)
  bool skip_first_column = false;

  bool operator==(const ScaleRange& o) const {
    return mode == o.mode && lo == o.lo && hi == o.hi && skip_first_column == o.skip_first_column;
  }
  bool operator!=(const ScaleRange& o) const { return !(*this == o); }
};

// Log scales show three decades below the largest weight.
constexpr float kLogDecades = 3.0f;

// The range for maps whose largest weight is `max_value` (with the first column ignored when
// the settings say so: pass that max then).
ScaleRange scale_range(const ScaleSettings& settings, float max_value);

// t for one value (row_max is used by the per-row mode only).
float scale_unit(const ScaleRange& range, float value, float row_max);

// t for every cell of `map` ([rows, cols] -> [rows, cols]).
Map scale_to_unit(const Map& map, const ScaleRange& range);

// The value a colour-bar position t in [0, 1] stands for (row mode: fraction of the row max).
float scale_value_at(const ScaleRange& range, float t);

// "weight", "weight (log)", "share of row max".
std::string scale_caption(const ScaleRange& range);

}  // namespace hs::gui
