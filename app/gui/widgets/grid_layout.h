#pragma once
// Arranging n square tiles (a map plus a title line) in a box: how many columns give the
// biggest tiles. With key/value groups the column count is a multiple of the group size, so a
// group never wraps and stays together.
namespace hs::gui {

struct GridLayout {
  int cols = 1, rows = 1;
  float tile_w = 0, tile_h = 0;  // one tile including its title and gaps
};

GridLayout layout_grid(int n, int group, float width, float height, float title_h, float gap);

}  // namespace hs::gui
