#include "app/gui/widgets/present_grid.h"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "app/gui/widgets/labels.h"

namespace hs::gui {
namespace {

float widest(const std::vector<std::string>& labels, ImFont* font, float size, int chars) {
  float w = 0;
  for (size_t i = 0; i < labels.size(); ++i)
    w = std::max(w, font->CalcTextSizeA(size, FLT_MAX, 0.0f, abbreviate(display_token(labels, i), chars).c_str()).x);
  return w;
}

}  // namespace

// Token labels presenting: never under 20 px, the smallest the back of a hall reads (they thin
// out instead).
float present_label_min() { return std::max(20.0f, ImGui::GetFontSize() * 0.72f); }
float present_label_max() { return ImGui::GetFontSize(); }

LabelFit fit_labels(const std::vector<std::string>& labels, ImFont* font, float cell, float min_px, float max_px) {
  LabelFit fit;
  const float pad = 4.0f;
  fit.size = std::clamp(cell * 0.9f, min_px, std::max(min_px, max_px));
  fit.step = cell > 0 ? std::max(1, int(std::ceil(fit.size * 0.95f / cell))) : 1;
  float w = widest(labels, font, fit.size, fit.chars);
  if (w > fit.size * 6.0f) {
    fit.chars = 5;
    w = widest(labels, font, fit.size, fit.chars);
  }
  fit.left = w + pad * 2 + 2;
  fit.rotate = w + pad > cell * float(fit.step);
  fit.bottom = (fit.rotate ? w : fit.size) + pad * 2 + 2;
  return fit;
}

PresentGrid layout_present_grid(int n, int group, int tokens, const std::vector<std::string>& labels, ImFont* font,
                                ImVec2 area, float title_h, float gap, float min_px, float max_px, bool col_labels,
                                bool row_labels) {
  PresentGrid g;
  if (n <= 0 || tokens <= 0) return g;
  const auto bottom = [&](const LabelFit& fit) { return col_labels ? fit.bottom : 0.0f; };
  const auto left = [&](const LabelFit& fit) { return row_labels ? fit.left : 0.0f; };
  g.labels = fit_labels(labels, font, 0, min_px, min_px);
  for (int round = 0; round < 4; ++round) {
    g.grid = layout_shared_grid(n, group, area.x, area.y, title_h, gap, left(g.labels), bottom(g.labels));
    g.cell = g.grid.side / float(tokens);
    const LabelFit next = fit_labels(labels, font, g.cell, min_px, max_px);
    // Larger cells give larger labels and wider margins: keep the margins that still fit.
    const SharedGrid check = layout_shared_grid(n, group, area.x, area.y, title_h, gap, left(next), bottom(next));
    if (check.side / float(tokens) * 0.9f + 0.5f < next.size && next.size > g.labels.size) break;
    g.labels = next;
  }
  g.grid = layout_shared_grid(n, group, area.x, area.y, title_h, gap, left(g.labels), bottom(g.labels));
  // Whole-pixel maps (cells may be fractional: the image is scaled to its box), not whole
  // quarter-pixel cells, which cost a map up to a quarter pixel times its tokens of its side.
  g.cell = std::floor(g.grid.side) / float(tokens);
  g.labels.step = g.cell > 0 ? std::max(1, int(std::ceil(g.labels.size * 0.95f / g.cell))) : 1;
  return g;
}

void share_labels(HeatmapSpec& spec, const PresentGrid& g, int i, int n) {
  const int cols = g.grid.cols;
  if (i % cols != 0) spec.row_labels = nullptr;
  if (i + cols < n) spec.col_labels = nullptr;
  spec.fixed_cell = g.cell;
  spec.fixed_label = g.labels.size;
  spec.fixed_left = g.labels.left;
  spec.fixed_bottom = g.labels.bottom;
  spec.fixed_step = g.labels.step;
  spec.fixed_chars = g.labels.chars;
  spec.fixed_rotate = g.labels.rotate;
}

}  // namespace hs::gui
