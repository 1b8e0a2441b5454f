#include "app/gui/widgets/grid_layout.h"

#include <algorithm>

namespace hs::gui {
namespace {

// A column count whose key/value group boxes each frame one group: whole groups on a row, or each group
// filling whole rows; one group of every head (multi-query) in any arrangement.
bool keeps_groups(int cols, int n, int group) {
  return group <= 1 || cols % group == 0 || group % cols == 0 || cols == n || group >= n;
}

}  // namespace

GridLayout layout_grid(int n, int group, float width, float height, float title_h, float gap, float aspect,
                       float margin_w, float margin_h) {
  GridLayout best;
  if (n <= 0) return best;
  group = std::max(group, 1);
  aspect = aspect > 0 ? aspect : 1.0f;
  float best_side = -1;
  for (int cols = 1; cols <= n; ++cols) {
    if (!keeps_groups(cols, n, group)) continue;
    const int rows = (n + cols - 1) / cols;
    const float w = width / cols, h = height / rows;
    // The map's height (its width is `aspect` times that): the larger, the larger the map.
    const float side = std::min((w - gap - margin_w) / aspect, h - gap - title_h - margin_h);
    if (side > best_side) {
      best_side = side;
      best = {cols, rows, w, h};
    }
  }
  return best;
}

SharedGrid layout_shared_grid(int n, int group, float width, float height, float title_h, float gap, float left,
                              float bottom) {
  SharedGrid best;
  if (n <= 0) return best;
  group = std::max(group, 1);
  float best_side = -1;
  for (int cols = 1; cols <= n; ++cols) {
    if (!keeps_groups(cols, n, group)) continue;
    const int rows = (n + cols - 1) / cols;
    const float side = std::min((width - left) / float(cols) - gap, (height - bottom) / float(rows) - title_h - gap);
    if (side > best_side) {
      best_side = side;
      best = {cols, rows, std::max(side, 0.0f)};
    }
  }
  return best;
}

}  // namespace hs::gui
