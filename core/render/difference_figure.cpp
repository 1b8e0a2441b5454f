#include "core/render/difference_figure.h"

#include <algorithm>
#include <cassert>

#include "core/render/colour_scale.h"
#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"

namespace hs {

Figure difference_figure(const RunAnalysis& analysis, int layer, Colormap colormap, const std::vector<int>& order, const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  assert(layer >= 0 && layer < run.n_layers() && "checked by export_view");
  // [H, H], symmetric, zero diagonal: mean over query rows of 0.5 * sum_k |A_a - A_b|
  const Map& measured = analysis.distance[size_t(layer)];
  const int H = int(measured.rows());
  std::vector<int> heads(static_cast<size_t>(H));  // row/column k shows head heads[k]
  for (int h = 0; h < H; ++h) heads[size_t(h)] = h;
  if (int(order.size()) == H) heads = order;
  TableFigure t;
  t.values.resize(H, H);
  for (int a = 0; a < H; ++a)
    for (int b = 0; b < H; ++b) t.values(a, b) = measured(heads[size_t(a)], heads[size_t(b)]);
  double cell = std::clamp(360.0 / H, 14.0, 48.0);
  if (H * cell > 900) cell = 900.0 / H;
  if (H * cell < 180) cell = 180.0 / H;  // room for the colour bar's ticks
  t.natural_cell = cell;
  for (int h : heads) t.row_names.push_back("head " + std::to_string(h));
  t.col_names = t.row_names;
  t.row_axis = "head a";
  t.col_axis = "head b";
  const float scale_max = colour_scale_max({&t.values});
  t.bar.colormap = colormap;
  t.bar.hi = scale_max;
  t.bar.lo = colormap_is_diverging(colormap) ? -scale_max : 0;
  t.bar.title = "mean total variation per query row";
  t.decimals = 3;
  t.title = figure_model_name(run) + " \u00b7 layer " + std::to_string(layer) +
            " \u00b7 head distance" +
            (order.empty() || H < 2 ? "" : " (cluster order)");
  return table_figure(t, style);
}

}  // namespace hs
