#include "core/render/table_figure.h"

#include <algorithm>
#include <cmath>

#include "core/render/canvas.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr Rgb8 kNoValue = {200, 200, 200};

// The sizes a table uses, points: the long-standing constants, or all from one text size.
struct TableMetrics {
  double margin = kMargin, title = kTitleSize, axis_title = kAxisTitleSize, tick = kTickSize, caption = kTickSize;
  double label_max = 10, label_min = 5.5, number_max = 10, number_min = 5, bar_width = kBarWidth;
  double axis_pad = 8, label_pad = 5, axis_gap = 6, bar_gap = 16, title_gap = 10, caption_gap = 6;
  double dendrogram = 36;  // the dendrogram band's height
};

TableMetrics table_metrics(const FigureStyle& style) {
  TableMetrics m;
  if (!style.styled()) return m;
  const double f = style.text_size();
  m.margin = std::max(2.0, 0.5 * f);
  m.title = 1.15 * f, m.axis_title = f, m.tick = f, m.caption = f;
  m.label_max = f, m.label_min = std::min(6.0, f);
  m.number_max = f, m.number_min = std::min(6.0, f);
  m.bar_width = std::max(5.0, 0.9 * f);
  m.axis_pad = 0.4 * f, m.label_pad = 0.35 * f, m.axis_gap = 0.35 * f, m.bar_gap = 1.2 * f;
  m.title_gap = 0.5 * f, m.caption_gap = 0.5 * f;
  m.dendrogram = 3 * f;
  return m;
}

// Where everything goes for cells of `cell` points, the content's top left at (ox, oy).
struct TableLayout {
  double cell_w = 0, cell_h = 0, w = 0, h = 0;
  double left = 0, top = 0;
  double bar_x = 0, bar_h = 0;
  double col_axis_y = 0, caption_y = 0;
  double width = 0, height = 0;  // the content's extent
  double dendrogram_h = 0;       // the dendrogram's band with its gap, between the title and the cells
  AxisLabels x_labels, y_labels;
  TextStyle number_style;
  bool numbers = false;
  std::vector<std::string> caption_lines;
  double caption_x = 0;        // the caption's left edge
  FittedText row_axis_title;   // along the table's height (figure_text.h)
};

struct TablePlan {
  const TableFigure* t = nullptr;
  TableMetrics m;
  int every = 0;
  bool title = true;
  bool caption = true;  // style.show_caption
  std::string title_text;
  FittedText title_fit;  // the title fitted to the page's width
  ColourBar bar;
  bool sized = false;
  double caption_width = 0;  // sized: the page's width for the caption
  double page_width = 0;     // sized: the page's width (0: free)
};

// Cells of cell_w x cell_h points (square but for a sized table with TableFigure::stretch_columns).
TableLayout lay_out_table(MeasureCanvas& mc, const TablePlan& p, double cell_w, double cell_h, double ox, double oy) {
  const TableFigure& t = *p.t;
  const TableMetrics& m = p.m;
  const int rows = int(t.values.rows()), cols = int(t.values.cols());
  TableLayout g;
  g.cell_w = cell_w;
  g.cell_h = cell_h;
  g.w = cols * cell_w;
  g.h = rows * cell_h;
  // Heads, layers and roles: names, not tokens (no space marks).
  g.x_labels = layout_axis_labels(mc, t.col_names, cell_w, true, m.label_max, m.label_min, p.every, SpaceMark::dot, false);
  g.y_labels = layout_axis_labels(mc, t.row_names, cell_h, false, m.label_max, m.label_min, p.every, SpaceMark::dot, false);
  // A number takes about 3.3 of its sizes across and 1.65 down (a square cell: its side / 3.3).
  g.number_style = TextStyle{std::min({m.number_max, cell_w / 3.3, cell_h / 1.65}), false, {0, 0, 0}};
  g.numbers = g.number_style.size >= m.number_min;
  const double axis_title_h = m.axis_title * 1.5;
  g.row_axis_title = fit_text(mc, t.row_axis, TextStyle{m.axis_title, false, {0, 0, 0}}, g.h, 2, m.label_min);
  const double y_label_w = g.y_labels.extent > 0 ? g.y_labels.extent + m.label_pad : 0;
  const double x_label_h = g.x_labels.extent > 0 ? g.x_labels.extent + m.label_pad : 0;
  g.left = ox + m.margin + std::max(axis_title_h, g.row_axis_title.height()) + m.axis_pad + y_label_w;
  g.top = oy + (p.title ? m.margin + p.title_fit.height() + m.title_gap : m.margin);
  g.dendrogram_h = t.dendrogram.empty() ? 0 : m.dendrogram + m.label_pad;
  g.top += g.dendrogram_h;
  g.bar_h = p.sized ? g.h : std::max(g.h, t.min_bar_height);
  g.bar_x = g.left + g.w + m.bar_gap;
  const double title_w = p.title ? p.title_fit.width : 0;
  g.width = g.bar_x - ox + colour_bar_width(mc, p.bar, g.bar_h) + m.margin;
  if (!p.sized) g.width = std::max(g.width, title_w + 2 * m.margin);
  g.col_axis_y = g.top + g.h + x_label_h + m.axis_gap;
  const double below = std::max(g.col_axis_y + axis_title_h, g.top + g.bar_h);
  const TextStyle caption_style{m.caption, false, {64, 64, 64}};
  // Under the table from its left edge; on a page, from the page's margin across its width.
  const bool page_caption = p.sized && p.page_width > 0;
  g.caption_x = page_caption ? m.margin : g.left;
  if (!t.caption.empty() && p.caption) {
    const double room = page_caption ? p.page_width - 2 * m.margin
                        : p.sized    ? p.caption_width - (g.left - ox) - m.margin
                                     : std::max(200.0, g.width - (g.left - ox) - m.margin);
    g.caption_lines = wrap_text(mc, t.caption, caption_style, room);
    for (std::string& line : g.caption_lines) line = shorten_text(mc, line, caption_style, room);  // a word wider than the page
  }
  g.caption_y = below + m.caption_gap;
  g.height = (g.caption_lines.empty() ? below : g.caption_y + m.caption * 1.35 * double(g.caption_lines.size())) - oy + m.margin;
  return g;
}

// The dendrogram of `merges` over columns of width cell_w from x0, its leaves (distance 0) at
// y_bottom and the largest merge distance band_h above: each merge a bracket joining its two
// clusters' x (a leaf's column centre, a cluster's the middle of its two parts) at its distance.
// The columns must follow the merges' leaf order (cluster_heads' order).
void draw_table_dendrogram(Canvas& c, const std::vector<ClusterMerge>& merges, double x0, double cell_w, double y_bottom,
                           double band_h) {
  const int H = int(merges.size()) + 1;
  float top = 0;
  for (const ClusterMerge& m : merges) top = std::max(top, m.distance);
  const auto y_of = [&](float d) { return y_bottom - (top > 0 ? double(d) / double(top) : 0.0) * band_h; };
  std::vector<double> x(size_t(2 * H - 1), 0.0), y(size_t(2 * H - 1), y_bottom);
  std::vector<std::vector<int>> members(size_t(2 * H - 1));  // the heads of each node, in leaf order
  for (int h = 0; h < H; ++h) members[size_t(h)] = {h};
  for (size_t k = 0; k < merges.size(); ++k) {
    std::vector<int>& joined = members[size_t(H) + k];
    joined = members[size_t(merges[k].a)];
    joined.insert(joined.end(), members[size_t(merges[k].b)].begin(), members[size_t(merges[k].b)].end());
  }
  const std::vector<int>& order = members.back();
  for (size_t col = 0; col < order.size(); ++col) x[size_t(order[col])] = x0 + (double(col) + 0.5) * cell_w;
  for (size_t k = 0; k < merges.size(); ++k) {
    const size_t a = size_t(merges[k].a), b = size_t(merges[k].b), n = size_t(H) + k;
    const double ym = y_of(merges[k].distance);
    c.line(x[a], y[a], x[a], ym, kFrameColour, 0.6);
    c.line(x[b], y[b], x[b], ym, kFrameColour, 0.6);
    c.line(x[a], ym, x[b], ym, kFrameColour, 0.6);
    x[n] = 0.5 * (x[a] + x[b]);
    y[n] = ym;
  }
}

// A cell's colour under the table's bar: sequential colormaps from bar.lo to bar.hi.
Rgb8 table_cell_colour(const ColourBar& bar, float v) {
  if (colormap_is_diverging(bar.colormap) || bar.lo == 0) return cell_colour(bar.colormap, v, float(bar.hi));
  return cell_colour(bar.colormap, v - float(bar.lo), float(bar.hi - bar.lo));
}

}  // namespace

Figure table_figure(const TableFigure& t, const FigureStyle& style) {
  const int rows = int(t.values.rows()), cols = int(t.values.cols());
  TablePlan p;
  p.t = &t;
  p.m = table_metrics(style);
  p.every = label_every(style);
  p.title = style.show_title;
  p.caption = style.show_caption;
  p.title_text = style.title.empty() ? t.title : style.title;
  p.bar = t.bar;
  if (style.colorbar_label) p.bar.title = *style.colorbar_label;
  p.bar.tick_size = p.m.tick;
  p.bar.title_size = p.m.axis_title;
  p.bar.width = p.m.bar_width;
  p.sized = style.sized();

  MeasureCanvas mc(style.font);
  // The title fitted to the page's width (figure_text.h): wrapped, smaller to 6 pt, shortened.
  p.title_fit = fit_title(mc, p.title_text, p.m.title, style.page_width, p.m.margin, p.title);
  Figure fig;
  TableLayout g;
  if (!p.sized) {
    g = lay_out_table(mc, p, t.natural_cell, t.natural_cell, 0, 0);
    fig.width = g.width;
    fig.height = g.height;
  } else {
    p.page_width = style.page_width;
    // Without a width the caption wraps at what an inch a cell would take.
    p.caption_width = style.page_width > 0 ? style.page_width : 72.0 * std::max(3, cols);
    // The largest cell for which the table fits the page (0: that side is free).
    auto fits_cells = [&](double cell_w, double cell_h) {
      const TableLayout l = lay_out_table(mc, p, cell_w, cell_h, 0, 0);
      return (style.page_width <= 0 || l.width <= style.page_width + 1e-9) &&
             (style.page_height <= 0 || l.height <= style.page_height + 1e-9);
    };
    auto fits = [&](double cell) { return fits_cells(cell, cell); };
    double lo = 1e-3, hi = 2000.0 / std::max(1, std::max(rows, cols)) + 100;
    if (!fits(lo)) {
      throw InputError("a page of " + format_pt(style.page_width) + " x " + format_pt(style.page_height) +
                       " pt is too small for this table with " + format_pt(style.text_size()) +
                       " pt text (give a larger --size, a smaller --font-size, or --labels none)");
    }
    for (int k = 0; k < 50; ++k) {
      const double mid = 0.5 * (lo + hi);
      (fits(mid) ? lo : hi) = mid;
    }
    // A tall table (many rows, few columns) on a page: its columns take the width the square cells
    // leave, so that every column keeps its label.
    // A table with stretch_columns: its columns at least wide enough for every label at the
    // smallest label size (1.2 x it, as layout_axis_labels stacks them), its rows as tall as then
    // fit; past the width at which the column labels stop growing (label_max / 0.78) the height no
    // longer depends on the width, and the columns take the width left, unless that costs the rows
    // more than a tenth of their height.
    double cell_w = lo, cell_h = lo;
    if (t.stretch_columns && style.page_width > 0) {
      const auto tallest = [&](double w) {  // the tallest rows that fit with columns w wide (0: none)
        if (!fits_cells(w, 1e-3)) return 0.0;
        double a = 1e-3, b = std::max(w, lo) * 4;
        for (int k = 0; k < 50; ++k) {
          const double mid = 0.5 * (a + b);
          (fits_cells(w, mid) ? a : b) = mid;
        }
        return a;
      };
      const double label_w = std::max(lo, p.m.label_min * 1.2 + 1e-6), grown_w = std::max(label_w, p.m.label_max / 0.78);
      const double h_label = tallest(label_w), h_grown = tallest(grown_w);
      if (h_grown > 0 && h_grown >= 0.9 * h_label) {
        cell_h = h_grown;
        double a = grown_w, b = style.page_width;
        for (int k = 0; k < 50; ++k) {
          const double mid = 0.5 * (a + b);
          (fits_cells(mid, cell_h) ? a : b) = mid;
        }
        cell_w = a;
      } else if (h_label > 0) {
        cell_w = label_w, cell_h = h_label;
      }
    }
    const TableLayout probe = lay_out_table(mc, p, cell_w, cell_h, 0, 0);
    fig.width = style.page_width > 0 ? style.page_width : probe.width;
    fig.height = style.page_height > 0 ? style.page_height : probe.height;
    g = lay_out_table(mc, p, cell_w, cell_h, 0.5 * (fig.width - probe.width), 0.5 * (fig.height - probe.height));
  }
  fig.title = p.title_text;
  fig.font = style.font;
  fig.cells.push_back({g.left, g.top, g.w, g.h, rows, cols});

  const TableMetrics m = p.m;
  const ColourBar bar = p.bar;
  const double fig_w = fig.width;
  const bool show_title = p.title;
  const std::string title = p.title_text;
  const Map values = t.values;
  const int decimals = t.decimals;
  const std::string col_axis = t.col_axis;
  const FittedText title_fit = p.title_fit;
  const std::vector<ClusterMerge> dendrogram = t.dendrogram;
  fig.draw = [=](Canvas& c) {
    const TextStyle axis_style{m.axis_title, false, {0, 0, 0}};
    const TextStyle caption_style{m.caption, false, {64, 64, 64}};
    const double centre = g.left + g.w / 2;
    if (show_title) {
      const double lo = m.margin + title_fit.width / 2, hi = fig_w - m.margin - title_fit.width / 2;
      draw_fitted(c, title_fit, lo <= hi ? std::clamp(centre, lo, hi) : fig_w / 2,
                  g.top - g.dendrogram_h - title_fit.height() - m.title_gap, HAlign::center);
    }
    std::vector<Rgb8> colours(size_t(rows) * size_t(cols));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const float v = values(i, j);
        colours[size_t(i) * size_t(cols) + size_t(j)] = std::isnan(v) ? kNoValue : table_cell_colour(bar, v);
      }
    c.cells(g.left, g.top, g.w, g.h, rows, cols, colours);
    c.stroke_rect(g.left, g.top, g.w, g.h, kFrameColour, 0.6);
    if (!dendrogram.empty()) draw_table_dendrogram(c, dendrogram, g.left, g.cell_w, g.top - m.label_pad, m.dendrogram);
    if (g.numbers) {
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
          const float v = values(i, j);
          TextStyle s = g.number_style;
          s.colour = ink_on(colours[size_t(i) * size_t(cols) + size_t(j)]);
          c.text(g.left + (j + 0.5) * g.cell_w, g.top + (i + 0.5) * g.cell_h, std::isnan(v) ? "\u2013" : format_number(v, decimals),
                 s, HAlign::center, VAlign::middle);
        }
    }
    draw_y_labels(c, g.y_labels, g.left - m.label_pad, g.top, g.cell_h);
    draw_x_labels(c, g.x_labels, g.left, g.top + g.h + m.label_pad, g.cell_w);
    draw_colour_bar(c, bar, g.bar_x, g.top, g.bar_h);
    const double y_label_w = g.y_labels.extent > 0 ? g.y_labels.extent + m.label_pad : 0;
    const FittedText& ra = g.row_axis_title;
    draw_fitted(c, ra, g.left - y_label_w - m.axis_pad - std::max(m.axis_title * 1.5, ra.height()) / 2 - ra.height() / 2,
                g.top + g.h / 2, HAlign::center, true);
    c.text(centre, g.col_axis_y, col_axis, axis_style, HAlign::center, VAlign::top);
    for (size_t k = 0; k < g.caption_lines.size(); ++k)
      c.text(g.caption_x, g.caption_y + m.caption * 1.35 * double(k), g.caption_lines[k], caption_style, HAlign::left, VAlign::top);
  };
  return fig;
}

double natural_table_cell(int rows, int cols) {
  const int n = std::max({rows, cols, 1});
  const double cell = std::clamp(420.0 / n, 12.0, 44.0);
  return n * cell > 900 ? 900.0 / n : cell;
}

TableFigure layers_heads_table(Map values) {
  TableFigure t;
  t.values = std::move(values);
  const int rows = int(t.values.rows()), cols = int(t.values.cols());
  t.natural_cell = natural_table_cell(rows, cols);
  t.min_bar_height = 120;
  for (int l = 0; l < rows; ++l) t.row_names.push_back("L" + std::to_string(l));
  for (int k = 0; k < cols; ++k) t.col_names.push_back("h" + std::to_string(k));
  t.row_axis = "layer";
  t.col_axis = "head";
  return t;
}

}  // namespace hs
