#include "core/render/heatmap_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_parts.h"
#include "core/render/peak_reduce.h"

namespace hs {
namespace {

struct GridLayout {
  int n = 1, cols = 1, rows = 1;
  double cell = 0, panel = 0;
  double panel_title_h = 0;  // room above each panel for "head h"
  double hgap = 0, vgap = 0;
  double left = 0, top = 0;  // where the first panel's title row starts
  double grid_w = 0, grid_h = 0;
};

// Cell size in points: big enough for readable labels, small enough that long sentences fit.
double cell_size(int T, int n_panels) {
  // A panel is at least 220 pt (grid: 120 pt) so the colour bar beside it has room for ticks.
  if (n_panels == 1) {
    const double c = std::clamp(360.0 / T, 11.0, 30.0);
    return T * c > 900 ? 900.0 / T : std::max(c, 220.0 / T);
  }
  const double base = n_panels <= 4 ? 240 : n_panels <= 16 ? 200 : 150;
  const double smallest = n_panels <= 4 ? 7.5 : n_panels <= 16 ? 5 : 3;
  const double c = std::clamp(base / T, smallest, 20.0);
  return T * c > 480 ? 480.0 / T : std::max(c, 120.0 / T);
}

}  // namespace

std::string figure_model_name(const AttentionRun& run) { return run.info.name.empty() ? run.info.kind : run.info.name; }

Figure heatmap_figure(const RunAnalysis& analysis, int layer, int head, const ColourScale& colours,
                      const HeatmapFigureExtras& extras) {
  const AttentionRun& run = analysis.run;
  assert(layer >= 0 && layer < run.n_layers() && head < run.n_heads() && "checked by export_view");
  const LayerMaps& maps = run.attention[size_t(layer)];
  std::vector<int> heads;
  if (head >= 0) heads.push_back(head);
  else if (int(extras.order.size()) == run.n_heads()) heads = extras.order;
  else for (int h = 0; h < run.n_heads(); ++h) heads.push_back(h);
  const int T = run.n_tokens();
  const bool grid = head < 0;

  GridLayout g;
  g.n = int(heads.size());
  g.cols = grid ? int(std::ceil(std::sqrt(double(g.n)))) : 1;
  g.rows = (g.n + g.cols - 1) / g.cols;
  g.cell = cell_size(T, grid ? std::max(g.n, 2) : 1);
  g.panel = g.cell * T;
  g.panel_title_h = grid ? kPanelTitleSize * 1.7 : 0;
  g.hgap = 14;
  g.vgap = 8;

  MeasureCanvas m;
  const double max_font = grid ? 9 : 10;
  const AxisLabels x_labels = layout_axis_labels(m, run.tokens, g.cell, true, max_font);
  const AxisLabels y_labels = layout_axis_labels(m, run.tokens, g.cell, false, max_font);

  std::vector<const Map*> shown;
  for (int h : heads) shown.push_back(&maps[size_t(h)]);
  const Colormap colormap = colours.colormap;
  // The range of each panel (ColourScale: shared by the panels, each its own, or fixed by the view).
  std::vector<ScaleRange> ranges;
  for (const Map* a : shown) {
    const float top = colours.fixed_max > 0 ? colours.fixed_max
                      : colours.per_map     ? colour_scale_max({a}, colours.ignore_first_key, &run.special_tokens)
                                            : colour_scale_max(shown, colours.ignore_first_key, &run.special_tokens);
    ranges.push_back(scale_range(colours, top));
  }
  // Per map, the bar reads as a share of each panel's largest weight.
  const bool relative = colours.per_map && colours.fixed_max <= 0 && g.n > 1;
  ColourBar bar = colour_bar_for(relative ? scale_range(colours, 1.0f) : ranges[0], colormap,
                                 relative ? "share of each head's largest weight"
                                 : extras.bar_title.empty() ? "attention weight" : extras.bar_title);
  if (relative && colours.mode == ScaleMode::row_normalised) bar = colour_bar_for(ranges[0], colormap, "attention weight");

  std::string title = figure_model_name(run) + " \u00b7 layer " + std::to_string(layer);
  if (!grid) title += " \u00b7 head " + std::to_string(head);
  else if (g.n == 1) title += " \u00b7 head 0";
  else title += " \u00b7 heads 0\u2013" + std::to_string(g.n - 1);
  if (grid && g.n > 1 && !extras.order.empty()) title += " (cluster order)";
  if (!extras.title.empty()) title = extras.title;
  const TextStyle title_style{kTitleSize, true, {0, 0, 0}};
  const TextStyle axis_style{kAxisTitleSize, false, {0, 0, 0}};
  const TextStyle panel_style{kPanelTitleSize, false, {0, 0, 0}};

  // Horizontal: margin | "query" | y labels | panels | colour bar | margin.
  const double axis_title_h = kAxisTitleSize * 1.5;
  g.left = kMargin + axis_title_h + 8 + y_labels.extent + 5;
  g.top = kMargin + kTitleSize * 1.4 + 8;
  g.grid_w = g.cols * g.panel + (g.cols - 1) * g.hgap;
  g.grid_h = g.rows * (g.panel_title_h + g.panel) + (g.rows - 1) * g.vgap;
  const double bar_x = g.left + g.grid_w + 16;
  const double bar_y = g.top + g.panel_title_h;
  const double bar_h = g.grid_h - g.panel_title_h;
  const double title_w = m.width(title, title_style);

  const double fig_w = std::max(bar_x + colour_bar_width(m, bar, bar_h) + kMargin, title_w + 2 * kMargin);
  const double fig_h = g.top + g.grid_h + 5 + x_labels.extent + 6 + axis_title_h + kMargin;
  Figure fig;
  fig.title = title;
  fig.width = fig_w;
  fig.height = fig_h;

  for (int p = 0; p < g.n; ++p) {
    const double px = g.left + (p % g.cols) * (g.panel + g.hgap);
    const double py = g.top + (p / g.cols) * (g.panel_title_h + g.panel + g.vgap) + g.panel_title_h;
    fig.cells.push_back({px, py, g.panel, g.panel, T, T});
  }
  const std::vector<CellBlock> blocks = fig.cells;
  const AttentionRun* r = &run;
  fig.draw = [=](Canvas& c) {
    const double centre = g.left + g.grid_w / 2;
    const double title_x = std::clamp(centre, kMargin + title_w / 2, fig_w - kMargin - title_w / 2);
    c.text(title_x, kMargin, title, title_style, HAlign::center, VAlign::top);

    c.set_max_rect_cells(std::max(4096L, 60000L / g.n));  // the whole grid: at most ~60k rectangles
    std::vector<Rgb8> cells(size_t(T) * size_t(T));
    for (int p = 0; p < g.n; ++p) {
      const int h = heads[size_t(p)];
      const Map& a = r->attention[size_t(layer)][size_t(h)];  // [T, T], row = query i, col = key j
      const double px = blocks[size_t(p)].x, py = blocks[size_t(p)].y;
      if (grid) c.text(px + g.panel / 2, py - 4, "head " + std::to_string(h), panel_style, HAlign::center, VAlign::bottom);
      const Map t = scale_to_unit(a, ranges[size_t(p)]);  // [T, T], what the app's shader colours
      // A raster with fewer pixels than cells: each pixel the largest cell it covers, as on screen.
      const int pixels = c.raster_pixels(g.panel);
      const Map drawn = pixels > 0 && pixels < T ? block_max(t, pixels, pixels) : t;  // [n, n]
      const int n = int(drawn.rows());
      cells.resize(size_t(n) * size_t(n));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) cells[size_t(i) * size_t(n) + size_t(j)] = colormap_lookup(colormap, drawn(i, j));
      c.cells(px, py, g.panel, g.panel, n, n, cells);
      c.stroke_rect(px, py, g.panel, g.panel, kFrameColour, 0.6);
      if (p % g.cols == 0) draw_y_labels(c, y_labels, px - 5, py, g.cell);
      if (p + g.cols >= g.n) draw_x_labels(c, x_labels, px, py + g.panel + 5, g.cell);
    }
    draw_colour_bar(c, bar, bar_x, bar_y, bar_h);
    c.text(kMargin + axis_title_h / 2, bar_y + bar_h / 2, "query", axis_style, HAlign::center, VAlign::middle, true);
    c.text(centre, fig_h - kMargin, "key", axis_style, HAlign::center, VAlign::bottom);
  };
  return fig;
}

}  // namespace hs
