#pragma once
// Colormaps: one 256-entry RGB table per map, shared by the GPU shader (uploaded as a 256x1
// texture) and the CPU renderer, so an export matches the screen pixel for pixel.
// Tables come from matplotlib (assets/colormaps/make_tables.py).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace hs {

enum class Colormap { viridis, magma, gray, cividis, rdbu };

struct Rgb8 {
  uint8_t r, g, b;
};

// All maps, in menu order; `colormap_name` gives "viridis", "magma", "gray", "cividis", "rdbu".
const std::vector<Colormap>& all_colormaps();
const char* colormap_name(Colormap c);
// Throws InputError listing the known names.
Colormap parse_colormap(const std::string& name);
// Diverging maps centre on zero (used for signed difference maps).
bool colormap_is_diverging(Colormap c);

// The 256 entries, index 0 = lowest value.
const std::array<Rgb8, 256>& colormap_table(Colormap c);

// t in [0, 1] (clamped; NaN maps to 0) -> the table entry floor(t * 255 + 0.5).
Rgb8 colormap_lookup(Colormap c, float t);

// Cells a mask hides (causal, sliding window) are not weight 0: they are drawn in a colour no
// entry of the colormap has (light grey; gray: pale orange; rdbu: mid grey), with a legend entry.
// A t below 0 stands for such a cell (kMaskedT).
constexpr float kMaskedT = -1.0f;
Rgb8 masked_colour(Colormap c);
// colormap_lookup, or masked_colour for t < 0.
Rgb8 cell_lookup(Colormap c, float t);

}  // namespace hs
