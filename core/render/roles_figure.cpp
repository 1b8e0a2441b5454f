#include "core/render/roles_figure.h"

#include <algorithm>
#include <cmath>

#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"

namespace hs {

Figure roles_figure(const RunAnalysis& analysis, HeadRole role, Colormap colormap, const FigureStyle& style) {
  const HeadRoles& roles = analysis.roles;
  const int L = roles.n_layers(), H = roles.n_heads();
  TableFigure t;
  // values: [L, H], NaN where not measured
  t.values.resize(std::max(L, 1), std::max(H, 1));
  t.values.setConstant(std::nanf(""));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) t.values(l, h) = roles.scores[size_t(l)][size_t(h)][role];
  const int rows = int(t.values.rows()), cols = int(t.values.cols());
  double cell = std::clamp(420.0 / std::max(rows, cols), 12.0, 44.0);
  if (std::max(rows, cols) * cell > 900) cell = 900.0 / std::max(rows, cols);
  t.natural_cell = cell;
  t.min_bar_height = 120;
  for (int l = 0; l < rows; ++l) t.row_names.push_back("L" + std::to_string(l));
  for (int k = 0; k < cols; ++k) t.col_names.push_back("h" + std::to_string(k));
  t.row_axis = "layer";
  t.col_axis = "head";
  t.bar.colormap = colormap;
  t.bar.lo = 0;
  t.bar.hi = 1;
  t.bar.title = std::string(head_role_name(role)) + " score";
  t.decimals = 2;
  t.title = figure_model_name(analysis.run) + " \u00b7 " + head_role_name(role) + " score \u00b7 layers \u00d7 heads";
  t.caption = std::string(head_role_definition(role)) + (t.values.hasNaN() ? ". Grey: not measured." : "");
  return table_figure(t, style);
}

}  // namespace hs
