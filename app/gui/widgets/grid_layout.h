#pragma once
// Arranging n tiles (a map plus a title line) in a box: how many columns give the biggest
// maps. A map is `aspect` times as wide as it is tall (1: square; a layers x heads map of 5 x 8
// cells: 8 / 5) plus label margins `margin_w` left of it and `margin_h` under it; the tiles
// take the whole box and each map is as large as its tile allows. With key/value groups the column count is a multiple of the group size, so a
// group never wraps and stays together.
namespace hs::gui {

struct GridLayout {
  int cols = 1, rows = 1;
  float tile_w = 0, tile_h = 0;  // one tile including its title and gaps
};

GridLayout layout_grid(int n, int group, float width, float height, float title_h, float gap, float aspect = 1.0f,
                       float margin_w = 0.0f, float margin_h = 0.0f);

// Presentation: the maps share their token labels (row labels once, left of the first column;
// column labels once, under the lowest map of each column), so the label margins `left` and
// `bottom` are paid once, not per map. The arrangement (cols x rows) whose square map `side`
// is largest: cols * (side + gap) + left <= width and rows * (title_h + side + gap) + bottom
// <= height. Same column rule for key/value groups as layout_grid.
struct SharedGrid {
  int cols = 1, rows = 1;
  float side = 0;  // one map's side (cells only); 0 when nothing fits
};

SharedGrid layout_shared_grid(int n, int group, float width, float height, float title_h, float gap, float left,
                              float bottom);

}  // namespace hs::gui
