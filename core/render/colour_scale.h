#pragma once
// The one rule that turns a map value into a colour, shared by the app's GPU shader and the CPU
// renderer (exports), so an exported figure equals what the window shows:
//
//   ColourScale (what the user chose: linear / log / per-row, "ignore first key", colormap)
//     + the largest value of the maps shown together           -> ScaleRange
//   ScaleRange + a value (+ its row's largest, per-row mode)   -> t in [0, 1]   (scale_unit)
//   t                                                          -> table entry floor(t * 255 + 0.5)
//
//   scale_max = max |v| over every cell of the map(s) shown together (one head: that head; the
//               grid of a layer: all its heads, so they share one colour bar; the difference
//               table: the [H, H] table), column 0 left out with "ignore first key" (a run with
//               special tokens: their key columns; per-row mode still leaves out column 0). When that
//               is not > 0 (all zero, NaN), 1.
//   linear:  t = clamp(v / scale_max, 0, 1)              sequential colormaps
//            t = clamp(0.5 + 0.5 * v / scale_max, 0, 1)  diverging colormaps (rdbu): 0 in the middle
//   log:     t = log(v / lo) / log(scale_max / lo), lo = scale_max * 10^-kLogDecades; v <= lo -> 0
//   per-row: t = v / (largest v of the row; column 0 left out with "ignore first key")
//
// The colour bar spans [0, scale_max] (diverging: [-scale_max, scale_max]; log: [lo, scale_max];
// per-row: [0, 1] of the row's largest).
#include <string>
#include <tuple>
#include <vector>

#include "core/render/colormap.h"
#include "core/util/same_fields.h"
#include "core/util/tensor.h"

namespace hs {

enum class ScaleMode { linear, log, row_normalised };

// What the user chose; the same in the app's state, session files and ExportSpec.
struct ColourScale {
  ScaleMode mode = ScaleMode::linear;
  bool ignore_first_key = false;  // the first token often swamps the scale
  Colormap colormap = Colormap::viridis;
  // Which maps share one range. Default: every map shown together (a layer's grid: one colour
  // bar). per_map: each map its own (a dim head looks as bright as the brightest; the bar reads
  // as a share of each map's largest value). fixed_max > 0: the top is set by the view (one head
  // shown on its layer's range). The app's views set these per view; export takes them as shown.
  bool per_map = false;
  float fixed_max = 0.0f;

  // Every field (a field added above goes here too: tests/core/model/model_request_equality_test.cpp).
  auto tie() const { return std::tie(mode, ignore_first_key, colormap, per_map, fixed_max); }
  bool operator==(const ColourScale& o) const { return same_fields(tie(), o.tie()); }
  bool operator!=(const ColourScale& o) const { return !(*this == o); }
};

// "linear", "log", "row"; parse throws InputError listing them.
const char* scale_mode_name(ScaleMode mode);
ScaleMode parse_scale_mode(const std::string& name);

// A ColourScale resolved against the maps shown together.
struct ScaleRange {
  ScaleMode mode = ScaleMode::linear;
  float lo = 0.0f, hi = 1.0f;  // linear: [0, max] (diverging [-max, max]); log: [lo, max], lo > 0; row: [0, 1]
  bool skip_first_column = false;
  bool diverging = false;      // linear on a diverging colormap: 0 sits in the middle

  bool operator==(const ScaleRange& o) const {
    return mode == o.mode && lo == o.lo && hi == o.hi && skip_first_column == o.skip_first_column &&
           diverging == o.diverging;
  }
  bool operator!=(const ScaleRange& o) const { return !(*this == o); }
};

// Log scales show three decades below the largest weight.
constexpr float kLogDecades = 3.0f;

// max |v| over the maps (column 0 left out when `skip_first_column` and there are other
// columns), or 1 when that is not > 0. With `skip_keys` (a run's special tokens: [CLS], [SEP],
// <s>, ...; one per column) holding any true, "first column" means those key columns instead: in
// BERT they swamp the range as column 0 does in a decoder. Maps of block maxima (long-input
// mode, fewer columns than tokens) leave out column 0.
float colour_scale_max(const std::vector<const Map*>& maps, bool skip_first_column = false,
                       const std::vector<bool>* skip_keys = nullptr);

// The range for maps whose largest value is `max_value` (computed with the first column left
// out when the scale says so: colour_scale_max(maps, scale.ignore_first_key)).
ScaleRange scale_range(const ColourScale& scale, float max_value);

// t in [0, 1] for one value (row_max is read by the per-row mode only).
float scale_unit(const ScaleRange& range, float value, float row_max);

// t for every cell of `map` ([rows, cols] -> [rows, cols]): what the shader and figures colour.
Map scale_to_unit(const Map& map, const ScaleRange& range);
// The same into `out` (resized; its storage reused when large enough: the app colours many maps).
void scale_to_unit(const Map& map, const ScaleRange& range, Map& out);

// The value a colour-bar position t in [0, 1] stands for (row mode: fraction of the row max).
float scale_value_at(const ScaleRange& range, float t);

// "weight", "log weight", "row share", + "\nkey 0 out" when the first key is left out.
std::string scale_caption(const ScaleRange& range);

// The linear rule alone: t for a value under scale_max (sequential or diverging colormap).
float colour_t(Colormap cm, float value, float scale_max);

// colormap_lookup(cm, colour_t(cm, value, scale_max)).
Rgb8 cell_colour(Colormap cm, float value, float scale_max);

}  // namespace hs
