#include "core/render/roles_figure.h"

#include <algorithm>
#include <cmath>

#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"

namespace hs {

Figure roles_figure(const RunAnalysis& analysis, HeadRole role, Colormap colormap, const FigureStyle& style) {
  const HeadRoles& roles = analysis.roles;
  const int L = roles.n_layers(), H = roles.n_heads();
  // values: [L, H], NaN where not measured
  Map values(std::max(L, 1), std::max(H, 1));
  values.setConstant(std::nanf(""));
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) values(l, h) = roles.scores[size_t(l)][size_t(h)][role];
  TableFigure t = layers_heads_table(std::move(values));
  t.bar.colormap = colormap;
  t.bar.lo = 0;
  t.bar.hi = 1;
  t.bar.title = std::string(head_role_name(role)) + " score";
  t.decimals = 2;
  t.title = figure_model_name(analysis.run) + " \u00b7 " + head_role_name(role) + " score \u00b7 layers \u00d7 heads";
  t.caption = std::string(head_role_definition(role)) + (t.values.hasNaN() ? ". Grey: not measured." : "");
  return table_figure(t, style);
}

Figure all_roles_figure(const RunAnalysis& analysis, Colormap colormap, const FigureStyle& style) {
  const HeadRoles& roles = analysis.roles;
  const int L = roles.n_layers(), H = roles.n_heads();
  TableFigure t;
  // values: [L * H, n_roles], a row per head (layer-major), NaN where not measured
  t.values.resize(std::max(L * H, 1), kHeadRoleCount);
  t.values.setConstant(std::nanf(""));
  bool labelled = false;
  for (int l = 0; l < L; ++l) {
    for (int h = 0; h < H; ++h) {
      for (int r = 0; r < kHeadRoleCount; ++r) t.values(l * H + h, r) = roles.scores[size_t(l)][size_t(h)][HeadRole(r)];
      const std::string& label = roles.label[size_t(l)][size_t(h)];
      labelled = labelled || !label.empty();
      t.row_names.push_back("L" + std::to_string(l) + " h" + std::to_string(h) + (label.empty() ? "" : " \u00b7 " + label));
    }
  }
  if (t.row_names.empty()) t.row_names.push_back("");
  for (int r = 0; r < kHeadRoleCount; ++r) t.col_names.push_back(head_role_name(HeadRole(r)));
  // Rows of heads up to 900 points tall, cells of up to 26 points (room for the numbers).
  t.natural_cell = std::clamp(900.0 / double(t.values.rows()), 12.0, 26.0);
  t.min_bar_height = 120;
  t.stretch_columns = true;
  t.row_axis = "head \u00b7 its label";
  t.col_axis = "role";
  t.bar.colormap = colormap;
  t.bar.lo = 0;
  t.bar.hi = 1;
  t.bar.title = "role score";
  t.decimals = 2;
  t.title = figure_model_name(analysis.run) + " \u00b7 head roles \u00b7 every head of layers 0\u2013" + std::to_string(L - 1);
  t.caption = "Each head's score for every role (1: the role exactly); a head is labelled with its strongest role "
              "when that score clears " + format_number(roles.options.threshold, 2) +
              (roles.chance.empty() ? std::string()
                                    : " and its chance level (uniform attention's score) by " +
                                          format_number(roles.options.chance_margin, 2)) +
              "." +
              (labelled ? "" : " No head is labelled.") + (t.values.hasNaN() ? " Grey: not measured." : "");
  return table_figure(t, style);
}

}  // namespace hs
