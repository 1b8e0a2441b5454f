#include "core/render/difference_figure.h"

#include <algorithm>
#include <cassert>

#include "core/render/canvas.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"

namespace hs {
namespace {

// Black on light cells, white on dark ones (relative luminance, Rec. 709 weights).
Rgb8 ink_for(Rgb8 c) {
  const double y = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
  return y > 0.5 ? Rgb8{0, 0, 0} : Rgb8{255, 255, 255};
}

}  // namespace

Figure difference_figure(const RunAnalysis& analysis, int layer, Colormap colormap, PairMeasure measure,
                         const std::vector<int>& order) {
  const AttentionRun& run = analysis.run;
  assert(layer >= 0 && layer < run.n_layers() && "checked by export_view");
  // diff: [H, H], symmetric, zero diagonal: mean over the T*T cells of |A_a - A_b|, or mean over
  // query rows of 0.5 * sum_k |A_a - A_b| (the distance)
  const bool distance = measure == PairMeasure::distance;
  const Map& measured = pair_measure(analysis, measure, layer);
  const int H = int(measured.rows());
  std::vector<int> heads(static_cast<size_t>(H));  // row/column k shows head heads[k]
  for (int h = 0; h < H; ++h) heads[size_t(h)] = h;
  if (int(order.size()) == H) heads = order;
  Map diff(H, H);
  for (int a = 0; a < H; ++a)
    for (int b = 0; b < H; ++b) diff(a, b) = measured(heads[size_t(a)], heads[size_t(b)]);
  double cell = std::clamp(360.0 / H, 14.0, 48.0);
  if (H * cell > 900) cell = 900.0 / H;
  if (H * cell < 180) cell = 180.0 / H;  // room for the colour bar's ticks
  const double side = H * cell;

  std::vector<std::string> names;
  for (int h : heads) names.push_back("head " + std::to_string(h));
  MeasureCanvas m;
  AxisLabels x_labels = layout_axis_labels(m, names, cell, true, 10);
  AxisLabels y_labels = layout_axis_labels(m, names, cell, false, 10);

  const float scale_max = colour_scale_max({&diff});
  ColourBar bar;
  bar.colormap = colormap;
  bar.hi = scale_max;
  bar.lo = colormap_is_diverging(colormap) ? -scale_max : 0;
  bar.title = distance ? "mean total variation per query row" : "mean |A_a \u2212 A_b| over cells";

  // Numbers in cells: three decimals, as large as the cell allows; none when unreadable.
  const TextStyle number_style{std::min(10.0, cell / 3.3), false, {0, 0, 0}};
  const bool numbers = number_style.size >= 5.0;

  const std::string title = figure_model_name(run) + " \u00b7 layer " + std::to_string(layer) + (distance ? " \u00b7 head distance" : " \u00b7 head difference") +
                            (order.empty() || H < 2 ? "" : " (cluster order)");
  const TextStyle title_style{kTitleSize, true, {0, 0, 0}};
  const TextStyle axis_style{kAxisTitleSize, false, {0, 0, 0}};
  const double axis_title_h = kAxisTitleSize * 1.5;
  const double left = kMargin + axis_title_h + 8 + y_labels.extent + 5;
  const double top = kMargin + kTitleSize * 1.4 + 10;
  const double bar_x = left + side + 16;
  const double title_w = m.width(title, title_style);
  const double fig_w = std::max(bar_x + colour_bar_width(m, bar, side) + kMargin, title_w + 2 * kMargin);
  const double fig_h = top + side + 5 + x_labels.extent + 6 + axis_title_h + kMargin;

  Figure fig;
  fig.title = title;
  fig.width = fig_w;
  fig.height = fig_h;
  fig.cells.push_back({left, top, side, side, H, H});
  fig.draw = [=](Canvas& c) {
    const double centre = left + side / 2;
    c.text(std::clamp(centre, kMargin + title_w / 2, fig_w - kMargin - title_w / 2), kMargin, title, title_style,
           HAlign::center, VAlign::top);
    std::vector<Rgb8> colours(size_t(H) * size_t(H));
    for (int a = 0; a < H; ++a)
      for (int b = 0; b < H; ++b) colours[size_t(a) * size_t(H) + size_t(b)] = cell_colour(colormap, diff(a, b), scale_max);
    c.cells(left, top, side, side, H, H, colours);
    c.stroke_rect(left, top, side, side, kFrameColour, 0.6);
    if (numbers) {
      for (int a = 0; a < H; ++a) {
        for (int b = 0; b < H; ++b) {
          TextStyle s = number_style;
          s.colour = ink_for(colours[size_t(a) * size_t(H) + size_t(b)]);
          c.text(left + (b + 0.5) * cell, top + (a + 0.5) * cell, format_number(diff(a, b), 3), s, HAlign::center,
                 VAlign::middle);
        }
      }
    }
    draw_y_labels(c, y_labels, left - 5, top, cell);
    draw_x_labels(c, x_labels, left, top + side + 5, cell);
    draw_colour_bar(c, bar, bar_x, top, side);
    c.text(kMargin + axis_title_h / 2, top + side / 2, "head a", axis_style, HAlign::center, VAlign::middle, true);
    c.text(centre, fig_h - kMargin, "head b", axis_style, HAlign::center, VAlign::bottom);
  };
  return fig;
}

}  // namespace hs
