#include "core/render/difference_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

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
  // The colour range spans the off-diagonal cells: the diagonal (a head against itself, 0) is left
  // blank (a dash) so that it does not stretch the range down to 0.
  float lo = 1, hi = 0;
  for (int a = 0; a < H; ++a)
    for (int b = 0; b < H; ++b)
      if (a != b && std::isfinite(t.values(a, b))) lo = std::min(lo, t.values(a, b)), hi = std::max(hi, t.values(a, b));
  for (int a = 0; a < H; ++a) t.values(a, a) = std::numeric_limits<float>::quiet_NaN();
  if (!(hi > lo)) lo = 0, hi = std::max(hi, 1e-6f);
  t.bar.colormap = colormap;
  t.bar.hi = hi;
  t.bar.lo = colormap_is_diverging(colormap) ? -hi : lo;
  t.bar.title = "mean total variation per query row";
  // In cluster order, the clustering's dendrogram above the columns.
  if (int(order.size()) == H && H >= 2) {
    const HeadClustering clusters = cluster_heads(measured);
    if (clusters.order == order) t.dendrogram = clusters.merges;
  }
  t.decimals = 3;
  t.title = figure_model_name(run) + " \u00b7 layer " + std::to_string(layer) +
            " \u00b7 head distance" +
            (order.empty() || H < 2 ? "" : " (cluster order)");
  return table_figure(t, style);
}

}  // namespace hs
