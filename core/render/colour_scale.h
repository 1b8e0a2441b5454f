#pragma once
// The one rule that turns a map value into a colour, shared by the CPU renderer (exports) and
// the app's GPU shader, so an exported figure matches the screen:
//
//   scale_max = max |v| over every cell of the map(s) shown together (one head: that head;
//               the grid of a layer: all its heads, so they share one colour bar; the
//               difference table: the [H, H] table). When that is not > 0 (all zero, NaN), 1.
//   t = clamp(v / scale_max, 0, 1)               sequential maps (viridis, magma, gray, cividis)
//   t = clamp(0.5 + 0.5 * v / scale_max, 0, 1)   diverging maps (rdbu): zero sits in the middle
//   colour = colormap_lookup(cm, t)               table entry floor(t * 255 + 0.5)
//
// The colour bar of a figure spans [0, scale_max] (diverging: [-scale_max, scale_max]).
#include <vector>

#include "core/render/colormap.h"
#include "core/util/tensor.h"

namespace hs {

// max |v| over the maps, or 1 when that is not > 0.
float colour_scale_max(const std::vector<const Map*>& maps);

// t in [0, 1] for a value under the rule above.
float colour_t(Colormap cm, float value, float scale_max);

// colormap_lookup(cm, colour_t(cm, value, scale_max)).
Rgb8 cell_colour(Colormap cm, float value, float scale_max);

}  // namespace hs
