#include "core/render/heatmap_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/model/attention_layer.h"
#include "core/render/canvas.h"
#include "core/render/category_palette.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_parts.h"
#include "core/render/peak_reduce.h"
#include "core/render/shown_map.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// The sizes a layout uses, points. The natural layout keeps the long-standing constants; a
// styled one (a page size or a font size) derives them from one text size.
struct HeatmapMetrics {
  double margin = kMargin, title = kTitleSize, panel_title = kPanelTitleSize, axis_title = kAxisTitleSize;
  double tick = kTickSize, label_max = 9, label_min = 5.5, bar_width = kBarWidth;
  double hgap = 14, vgap = 8, axis_pad = 8, label_pad = 5, bar_gap = 16, title_gap = 8;
};

HeatmapMetrics metrics_for(const FigureStyle& style, bool grid) {
  HeatmapMetrics m;
  if (!style.styled()) {
    m.label_max = grid ? 9 : 10;
  } else {
    const double f = style.text_size();
    m.margin = std::max(2.0, 0.5 * f);
    m.title = 1.15 * f, m.panel_title = f, m.axis_title = f, m.tick = f;
    m.label_max = f, m.label_min = std::min(6.0, f);
    if (style.fill_page) m.label_min = kSlideLabelFloor * f;  // a slide: labels thin before they shrink
    m.bar_width = std::max(5.0, 0.9 * f);
    m.hgap = 0.9 * f, m.vgap = 0.35 * f;
    m.axis_pad = 0.4 * f, m.label_pad = 0.35 * f, m.bar_gap = 1.2 * f, m.title_gap = 0.5 * f;
  }
  if (style.gap >= 0) m.hgap = m.vgap = style.gap;
  return m;
}

// Cell size of the natural layout, points: big enough for readable labels, small enough that
// long sentences fit.
double natural_cell_size(int T, int n_panels) {
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

// Points: an overview's maps smaller than this drop their token labels (auto labels).
constexpr double kOverviewLabelledPanel = 48;

struct HeatmapPanel {
  int layer = 0, head = 0;
  MapMask mask;  // the cells no query of this map could see (core/render/map_mask.h)
};

// Everything a heatmap figure's drawing needs to know about where things go.
struct Layout {
  int n = 1, cols = 1, rows = 1;
  double cell_w = 0, cell_h = 0, panel_w = 0, panel_h = 0;  // square unless a slide stretches them
  double col_title_h = 0;  // room above a panel for "head h" (overview: above the first row only)
  bool titles_every_row = true;
  double row_title_w = 0;  // overview: "layer l" left of each row
  double left = 0, top = 0;
  double grid_w = 0, grid_h = 0;
  double bar_x = 0, bar_y = 0, bar_h = 0;
  double width = 0, height = 0;  // the content's extent from the origin
  AxisLabels x_labels, y_labels;
  double title_w = 0;
  int col_title_every = 1, row_title_every = 1;  // "head h" / "layer l" on every n-th column / row

  double row_y(int r) const {  // top of row r's panels
    return top + (titles_every_row ? r * (col_title_h + panel_h) + col_title_h : col_title_h + r * panel_h) +
           r * vgap_;
  }
  double col_x(int c) const { return left + c * (panel_w + hgap_); }
  double hgap_ = 0, vgap_ = 0;
};

struct Plan {
  const std::vector<std::string>* tokens = nullptr;
  int T = 0;
  int n = 1;
  bool grid = false;
  bool overview = false;
  int overview_cols = 0;
  HeatmapMetrics m;
  int every = 0;
  // Token labels in two lanes (figure_parts.h) on the x / y axis: the page's free margin used
  // before labels are thinned; set only where the figure still fits its page at the same cells.
  int lanes_x = 1, lanes_y = 1;
  SpaceMark space = SpaceMark::dot;  // FigureStyle::space_mark
  bool title = true;
  std::string title_text;
  FittedText title_fit;  // the title, fitted to the page's width (figure_text.h)
  ColourBar bar;
  int n_heads = 1, n_layers = 1;  // of the run: the widest column and row titles
  // The overview's tiles too small for token labels: columns numbered under one "head" and rows
  // under one "layer" (the layers x heads axes once) instead of "head h" / "layer l" at each.
  bool axes_once = false;
  bool legend = false;  // masked cells: a legend entry under the colour bar
  bool sized = false;   // laid out for a page
  // Grouped-query attention: query heads per key/value head (H / G; 1 for plain multi-head). Above
  // 1, each panel's frame takes its key/value head's colour (category_colour(h / group)), so the
  // heads that share one are seen together, as the app's grid boxes them.
  int kv_group = 1;
};

// Query heads per key/value head of `info` (1 when every head has its own, or G does not divide H).
int figure_kv_group(const ModelInfo& info) {
  const int H = info.n_heads, G = info.n_kv_heads;
  return G > 0 && G < H && H % G == 0 ? H / G : 1;
}

// Blanks the last label of a panel when the next panel's first label, `gap` points on, is closer
// than the labels need: stacked (y, or rotated x) 1.2 x their size; side by side half of each width.
void clear_panel_end(MeasureCanvas& mc, AxisLabels& labels, bool y_axis, double cell, double gap) {
  size_t last = labels.text.size();
  while (last > 0 && labels.text[last - 1].empty()) --last;
  if (last <= 1 || labels.text[0].empty()) return;
  if (labels.in_outer_lane(last - 1) != labels.in_outer_lane(0)) return;  // in different lanes, side by side
  const double apart = double(labels.text.size() - (last - 1)) * cell + gap;
  const double need = y_axis || labels.vertical
                          ? labels.style.size * 1.2
                          : 0.5 * (mc.width(labels.text[0], labels.style) + mc.width(labels.text[last - 1], labels.style)) + 2;
  if (apart < need) labels.text[last - 1].clear();
}

// Cells of cell_w x cell_h points (square but on a slide that stretches them).
Layout lay_out(MeasureCanvas& mc, const Plan& p, double cell_w, double cell_h, int cols, double ox, double oy) {
  const HeatmapMetrics& m = p.m;
  Layout g;
  g.n = p.n;
  g.cols = cols;
  g.rows = (g.n + g.cols - 1) / g.cols;
  g.cell_w = cell_w, g.cell_h = cell_h;
  g.panel_w = cell_w * p.T, g.panel_h = cell_h * p.T;
  const TextStyle panel_style{m.panel_title, false, {0, 0, 0}};
  const std::string last_head = std::to_string(std::max(p.n_heads - 1, 0)), last_layer = std::to_string(std::max(p.n_layers - 1, 0));
  g.col_title_h = p.grid ? m.panel_title * (p.axes_once ? 3.2 : 1.7) : 0;
  g.titles_every_row = !p.overview;
  g.row_title_w = !p.overview ? 0
                  : p.axes_once ? m.panel_title * 1.5 + mc.width(last_layer, panel_style) + 0.4 * m.panel_title
                                : m.panel_title * 1.5;
  g.hgap_ = m.hgap;
  g.vgap_ = m.vgap;
  // Both axes' labels at one size, the one the smaller side of a (stretched) cell gives.
  const double label_max = std::min(m.label_max, std::max(0.78 * std::min(cell_w, cell_h), m.label_min));
  g.x_labels = layout_axis_labels(mc, *p.tokens, cell_w, true, label_max, m.label_min, p.every, p.space, true, p.lanes_x);
  g.y_labels = layout_axis_labels(mc, *p.tokens, cell_h, false, label_max, m.label_min, p.every, p.space, true, p.lanes_y);
  // Panels side by side (or stacked): a label at a panel's end must not meet the next panel's first.
  if (g.rows > 1) clear_panel_end(mc, g.y_labels, true, cell_h, g.titles_every_row ? m.vgap + g.col_title_h : m.vgap);
  if (g.cols > 1) clear_panel_end(mc, g.x_labels, false, cell_w, m.hgap);
  const double axis_title_h = m.axis_title * 1.5;
  const double y_label_w = g.y_labels.extent > 0 ? g.y_labels.extent + m.label_pad : 0;
  const double x_label_h = g.x_labels.extent > 0 ? g.x_labels.extent + m.label_pad : 0;
  g.left = ox + m.margin + axis_title_h + m.axis_pad + g.row_title_w + y_label_w;
  g.top = oy + (p.title ? m.margin + p.title_fit.height() + m.title_gap : m.margin);
  g.grid_w = g.cols * g.panel_w + (g.cols - 1) * m.hgap;
  g.grid_h = (g.titles_every_row ? g.rows * g.col_title_h : g.col_title_h) + g.rows * g.panel_h + (g.rows - 1) * m.vgap;
  g.bar_x = g.left + g.grid_w + m.bar_gap;
  g.bar_y = g.top + g.col_title_h;
  g.bar_h = g.grid_h - g.col_title_h;
  g.title_w = p.title ? p.title_fit.width : 0;
  // Column ("head h") and row ("layer l") titles: every n-th when a panel is narrower than its title.
  if (p.grid) {
    const double w = mc.width(p.axes_once ? last_head : "head " + last_head, panel_style) + 0.5 * m.panel_title;
    g.col_title_every = std::max(1, int(std::ceil(w / (g.panel_w + m.hgap) - 1e-9)));
  }
  if (p.overview) {
    const double w = p.axes_once ? 1.2 * m.panel_title : mc.width("layer " + last_layer, panel_style) + 0.5 * m.panel_title;
    g.row_title_every = std::max(1, int(std::ceil(w / (g.panel_h + m.vgap) - 1e-9)));
  }
  double bar_w = colour_bar_width(mc, p.bar, g.bar_h);
  if (p.legend) bar_w = std::max(bar_w, masked_legend_width(mc, m.tick));
  g.width = g.bar_x - ox + bar_w + m.margin;
  if (!p.sized) g.width = std::max(g.width, g.title_w + 2 * m.margin);  // a page: the title is fitted to it
  g.height = g.top - oy + g.grid_h + 5 + x_label_h + 1 + axis_title_h + m.margin;
  if (p.legend) g.height = std::max(g.height, g.bar_y - oy + g.bar_h + m.tick * 2.2 + m.margin);
  return g;
}

Layout lay_out(MeasureCanvas& mc, const Plan& p, double cell, int cols, double ox, double oy) {
  return lay_out(mc, p, cell, cell, cols, ox, oy);
}

bool layout_fits_page(MeasureCanvas& mc, const Plan& p, double cell_w, double cell_h, int cols, double page_w, double page_h) {
  const Layout g = lay_out(mc, p, cell_w, cell_h, cols, 0, 0);
  return (page_w <= 0 || g.width <= page_w + 1e-9) && (page_h <= 0 || g.height <= page_h + 1e-9);
}

// The largest x in [lo, hi] with fits(x), by bisection (fits(lo) must hold).
template <class Fits>
double largest_fitting(double lo, double hi, Fits fits) {
  for (int k = 0; k < 50; ++k) {
    const double mid = 0.5 * (lo + hi);
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

// The largest cell for which the figure fits page_w x page_h (0: that side is free), with
// `cols` columns; 0 when even the smallest does not fit.
double fit_cell(MeasureCanvas& mc, const Plan& p, int cols, double page_w, double page_h) {
  auto fits = [&](double cell) { return layout_fits_page(mc, p, cell, cell, cols, page_w, page_h); };
  if (!fits(1e-3)) return 0;
  return largest_fitting(1e-3, 400.0 / std::max(p.T, 1) + 400, fits);
}

// The largest x in [lo, hi] that fits when the fit is not monotone in x (a wider cell can show more
// token labels, whose longest may not fit): the largest fitting step of a scan, refined by bisection.
template <class Fits>
double largest_fitting_scan(double lo, double hi, Fits fits) {
  constexpr int kSteps = 32;
  for (int k = kSteps; k > 0; --k) {
    const double x = lo + (hi - lo) * k / kSteps;
    if (fits(x)) return k == kSteps ? x : largest_fitting(x, lo + (hi - lo) * (k + 1) / kSteps, fits);
  }
  return largest_fitting(lo, lo + (hi - lo) / kSteps, fits);
}

// A slide's cells (FigureStyle::fill_page): from the largest square cell `c`, the side the page
// leaves room for grows (up to kSlideCellAspect x the other), the one of the two that covers more.
// Wider cells could show more token labels, whose longest may then not fit: the stretch is also
// tried keeping the square layout's label step (`every`), and the larger cells win.
struct CellSize {
  double w = 0, h = 0;
  int every = 0;  // the Plan's label step the cells were fitted with
};

// The step of an axis' labels: every k-th token has one (0: none shown).
int axis_label_step(const AxisLabels& labels) {
  const std::vector<std::string>& t = labels.text;
  for (size_t i = 1; i < t.size(); ++i)
    if (!t[i].empty()) return int(i);
  return t.empty() || t[0].empty() ? 0 : int(t.size());
}

// The step of labels laid out at the square cell: every k-th token has one (0: none shown).
int square_label_step(MeasureCanvas& mc, const Plan& p, int cols, double c) {
  if (p.every != 0) return p.every;
  return axis_label_step(lay_out(mc, p, c, c, cols, 0, 0).y_labels);
}

CellSize stretch_cell(MeasureCanvas& mc, const Plan& plan, int cols, double c, double page_w, double page_h) {
  const double top = kSlideCellAspect * c;
  CellSize best{c, c, plan.every};
  Plan p = plan;
  for (int every : {plan.every, square_label_step(mc, plan, cols, c)}) {
    p.every = every;
    const double w = largest_fitting_scan(c, top, [&](double x) { return layout_fits_page(mc, p, x, c, cols, page_w, page_h); });
    const double h = largest_fitting_scan(c, top, [&](double y) { return layout_fits_page(mc, p, c, y, cols, page_w, page_h); });
    const CellSize s = w >= h ? CellSize{w, c, every} : CellSize{c, h, every};
    if (s.w * s.h > best.w * best.h * (1 + 1e-6)) best = s;
  }
  return best;
}

// A page whose height limits the cells leaves width free; the x labels, thinned at square cells,
// use it before they are thinned: the cells widen (at most kSlideCellAspect x as wide as high)
// just enough for the densest x labels that fit the page, as dense as `every` asks at most. Denser
// labels may name longer tokens, whose rotated labels need more height: the cells give up at most
// kWidenHeightGive of their height for them. The cells stay as they are when the x labels are not
// thinned or nothing denser fits.
constexpr double kWidenHeightGive = 0.1;

CellSize widen_for_x_labels(MeasureCanvas& mc, const Plan& plan, int cols, CellSize cell, double page_w, double page_h) {
  Plan p = plan;
  p.every = cell.every;
  if (p.every < 0) return cell;
  const int base = std::max(p.every, 1);
  const auto x_step = [&](double w, double h) {
    const int step = axis_label_step(lay_out(mc, p, w, h, cols, 0, 0).x_labels);
    return step > 0 ? step : p.T + 1;
  };
  const int thinned = x_step(cell.w, cell.h);
  if (thinned <= base || x_step(kSlideCellAspect * cell.h, cell.h) >= thinned) return cell;
  // The narrowest cell at height h whose x labels are every `step`-th or denser (0: none up to
  // kSlideCellAspect : 1); the step falls as the cell widens.
  const auto narrowest = [&](int step, double h) {
    double lo = std::max(cell.w * h / cell.h, 1e-3), hi = kSlideCellAspect * h;
    if (x_step(hi, h) > step) return 0.0;
    for (int k = 0; k < 30; ++k) {
      const double mid = 0.5 * (lo + hi);
      (x_step(mid, h) <= step ? hi : lo) = mid;
    }
    return hi;
  };
  const auto fits = [&](int step, double h) {
    const double w = narrowest(step, h);
    return w > 0 && layout_fits_page(mc, p, w, h, cols, page_w, page_h);
  };
  for (int step = base; step < thinned; step += base) {
    const double least = (1 - kWidenHeightGive) * cell.h;
    if (!fits(step, least)) continue;
    const double h = fits(step, cell.h) ? cell.h : largest_fitting(least, cell.h, [&](double y) { return fits(step, y); });
    return CellSize{narrowest(step, h), h, cell.every};
  }
  return cell;
}

}  // namespace

std::string figure_model_name(const AttentionRun& run) { return run.info.name.empty() ? run.info.kind : run.info.name; }

namespace {

Figure panels_figure(const RunAnalysis& analysis, const std::vector<HeatmapPanel>& panels, bool grid, bool overview,
                     std::string title, const ColourScale& colours, const FigureStyle& style,
                     const std::string& bar_title = "attention weight") {
  const AttentionRun& run = analysis.run;
  const int T = run.n_tokens();
  Plan p;
  p.tokens = &run.tokens;
  p.T = T;
  p.n = int(panels.size());
  p.grid = grid;
  p.overview = overview;
  p.m = metrics_for(style, grid);
  p.every = label_every(style);
  p.space = style.space_mark;
  p.title = style.show_title;
  p.title_text = style.title.empty() ? title : style.title;
  p.n_heads = run.n_heads();
  p.n_layers = run.n_layers();
  p.kv_group = grid ? figure_kv_group(run.info) : 1;
  // The key/value grouping said once, in the title (fitted to the page with it).
  if (p.kv_group > 1 && style.title.empty())
    p.title_text += " \u00b7 frame colour = key/value head";

  std::vector<const Map*> shown;
  for (const HeatmapPanel& q : panels) shown.push_back(&run.attention[size_t(q.layer)][size_t(q.head)]);
  const Colormap colormap = colours.colormap;
  // The range of each panel (ColourScale: shared by the panels, each its own, or fixed by the view).
  std::vector<ScaleRange> ranges;
  const float shared_top = colour_scale_max(shown, colours.ignore_first_key, &run.special_tokens);
  for (const Map* a : shown) {
    const float top = colours.fixed_max > 0 ? colours.fixed_max
                      : colours.per_map     ? colour_scale_max({a}, colours.ignore_first_key, &run.special_tokens)
                                            : shared_top;
    ranges.push_back(scale_range(colours, top));
  }
  // Per map, the bar reads as a share of each panel's largest weight.
  const bool relative = colours.per_map && colours.fixed_max <= 0 && p.n > 1;
  p.bar = colour_bar_for(relative ? scale_range(colours, 1.0f) : ranges[0], colormap,
                         relative ? "share of each head's largest weight" : bar_title);
  if (relative && colours.mode == ScaleMode::row_normalised) p.bar = colour_bar_for(ranges[0], colormap, bar_title);
  if (style.colorbar_label) p.bar.title = *style.colorbar_label;
  p.bar.tick_size = p.m.tick;
  p.bar.title_size = p.m.axis_title;
  p.bar.width = p.m.bar_width;
  // Masked cells (a causal or window mask hides them): drawn in their own colour, with a legend.
  for (const HeatmapPanel& q : panels)
    if (q.mask.any()) p.legend = true;

  MeasureCanvas mc(style.font);
  p.sized = style.sized();
  // A title wider than the page wraps, gets smaller down to 6 pt, then is shortened (figure_text.h).
  p.title_fit = fit_title(mc, p.title_text, p.m.title, style.page_width, p.m.margin, p.title);
  Figure fig;
  Layout g;
  if (!style.sized()) {
    const int cols = overview ? std::max(1, run.n_heads()) : grid ? int(std::ceil(std::sqrt(double(p.n)))) : 1;
    // The overview: an inch a map (a 12 x 12 model is a 13-inch figure); else the grid's rule.
    const double cell = overview ? std::clamp(72.0 / T, 0.05, 8.0) : natural_cell_size(T, grid ? std::max(p.n, 2) : 1);
    g = lay_out(mc, p, cell, cols, 0, 0);
    fig.width = g.width;
    fig.height = g.height;
  } else {
    // Reflow: every arrangement of the panels (when both sides are given; else the square-ish
    // default), the one that gives the largest cells; text stays at its point size.
    std::vector<int> candidates;
    if (overview) candidates.push_back(std::max(1, run.n_heads()));
    else if (!grid) candidates.push_back(1);
    else if (style.page_width > 0 && style.page_height > 0)
      for (int c = 1; c <= p.n; ++c) candidates.push_back(c);
    else candidates.push_back(int(std::ceil(std::sqrt(double(p.n)))));
    double best = 0;
    int best_cols = candidates.front();
    CellSize best_cell;
    // The arrangement whose maps cover the most of the page: the largest cell, or on a slide
    // (both sides given) the largest stretched cell's area.
    const bool stretch = style.fill_page && style.page_width > 0 && style.page_height > 0;
    const auto fit_best = [&] {
      best = 0, best_cell = {};
      for (int c : candidates) {
        const double cell = fit_cell(mc, p, c, style.page_width, style.page_height);
        if (!(cell > 0)) continue;
        const CellSize s = stretch ? stretch_cell(mc, p, c, cell, style.page_width, style.page_height) : CellSize{cell, cell, p.every};
        if (s.w * s.h > best_cell.w * best_cell.h * (1 + 1e-6)) best = cell, best_cols = c, best_cell = s;
      }
    };
    fit_best();
    // The overview's maps smaller than kOverviewLabelledPanel (a column of a paper): the layers x
    // heads axes alone, no token labels on tiles too small to read them.
    if (overview && p.every == 0 && best * T < kOverviewLabelledPanel) {
      p.every = -1;
      p.axes_once = true;
      if (style.gap < 0) p.m.hgap = p.m.vgap = 0.35 * style.text_size();
      fit_best();
    }
    if (!(best > 0)) {
      throw InputError("a page of " + format_pt(style.page_width) + " x " + format_pt(style.page_height) +
                       " pt is too small for this figure with " + format_pt(style.text_size()) +
                       " pt text (give a larger --size, a smaller --font-size, or --labels none)");
    }
    p.every = best_cell.every;
    if (!stretch && style.page_width > 0 && style.page_height > 0)
      best_cell = widen_for_x_labels(mc, p, best_cols, best_cell, style.page_width, style.page_height);
    // Labels thinned at these cells: a second lane of labels where the page has room for it
    // (the y labels' lane in the side margin, the x labels' below), the cells unchanged.
    for (int* lanes : {&p.lanes_y, &p.lanes_x}) {
      *lanes = 2;
      if (!layout_fits_page(mc, p, best_cell.w, best_cell.h, best_cols, style.page_width, style.page_height)) *lanes = 1;
    }
    const Layout probe = lay_out(mc, p, best_cell.w, best_cell.h, best_cols, 0, 0);
    fig.width = style.page_width > 0 ? style.page_width : probe.width;
    fig.height = style.page_height > 0 ? style.page_height : probe.height;
    // Centred on the page: the side that limits the cells is filled.
    g = lay_out(mc, p, best_cell.w, best_cell.h, best_cols, 0.5 * (fig.width - probe.width), 0.5 * (fig.height - probe.height));
  }
  fig.title = p.title_text;
  fig.font = style.font;
  for (const std::string* note : {&g.x_labels.note, &g.y_labels.note})
    if (!note->empty() && std::find(fig.notes.begin(), fig.notes.end(), *note) == fig.notes.end()) fig.notes.push_back(*note);
  for (int k = 0; k < p.n; ++k) fig.cells.push_back({g.col_x(k % g.cols), g.row_y(k / g.cols), g.panel_w, g.panel_h, T, T});

  const HeatmapMetrics m = p.m;
  const double fig_w = fig.width;
  const std::vector<CellBlock> blocks = fig.cells;
  const AttentionRun* r = &run;
  const ColourBar bar = p.bar;
  const bool legend = p.legend, show_title = p.title, axes_once = p.axes_once;
  const int kv_group = p.kv_group;
  const FittedText title_fit = p.title_fit;
  fig.draw = [=](Canvas& c) {
    const TextStyle axis_style{m.axis_title, false, {0, 0, 0}};
    const TextStyle panel_style{m.panel_title, false, {0, 0, 0}};
    const double centre = g.left + g.grid_w / 2;
    if (show_title) {
      const double title_x = std::clamp(centre, m.margin + g.title_w / 2, fig_w - m.margin - g.title_w / 2);
      draw_fitted(c, title_fit, title_x, g.top - title_fit.height() - m.title_gap, HAlign::center);
    }

    c.set_max_rect_cells(std::max(4096L, 60000L / g.n));  // the whole grid: at most ~60k rectangles
    std::vector<Rgb8> cells;
    for (int k = 0; k < g.n; ++k) {
      const HeatmapPanel& q = panels[size_t(k)];
      const double px = blocks[size_t(k)].x, py = blocks[size_t(k)].y;
      const bool column_title = grid && (!overview || k < g.cols) && (k % g.cols) % g.col_title_every == 0;
      const std::string head_name = std::to_string(q.head), layer_name = std::to_string(q.layer);
      if (column_title)
        c.text(px + g.panel_w / 2, py - 4, axes_once ? head_name : "head " + head_name, panel_style, HAlign::center, VAlign::bottom);
      if (overview && k % g.cols == 0 && (k / g.cols) % g.row_title_every == 0) {
        const double x = g.left - (g.y_labels.extent > 0 ? g.y_labels.extent + m.label_pad : 0) - g.row_title_w / 2;
        if (axes_once) c.text(g.left - 0.4 * m.panel_title, py + g.panel_h / 2, layer_name, panel_style, HAlign::right, VAlign::middle);
        else c.text(x, py + g.panel_h / 2, "layer " + layer_name, panel_style, HAlign::center, VAlign::middle, true);
      }
      Map t;  // [T, T], what the app's shader colours: the mask travels with the map (shown_map.h)
      scale_shown({&r->attention[size_t(q.layer)][size_t(q.head)], q.mask, T}, ranges[size_t(k)], t);
      // Fewer pixels than cells (a PNG, or SVG/PDF at kVectorImageDpi): each pixel the largest
      // cell it covers, as on screen.
      const int pixels = c.image_pixels(std::max(g.panel_w, g.panel_h));
      const Map drawn = pixels > 0 && pixels < T ? block_max(t, pixels, pixels) : t;  // [n, n]
      const int n = int(drawn.rows());
      cells.resize(size_t(n) * size_t(n));
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) cells[size_t(i) * size_t(n) + size_t(j)] = cell_lookup(colormap, drawn(i, j));
      c.cells(px, py, g.panel_w, g.panel_h, n, n, cells);
      if (kv_group > 1) c.stroke_rect(px, py, g.panel_w, g.panel_h, category_colour(q.head / kv_group), 1.5);
      else c.stroke_rect(px, py, g.panel_w, g.panel_h, kFrameColour, 0.6);
      if (k % g.cols == 0) draw_y_labels(c, g.y_labels, px - m.label_pad, py, g.cell_h);
      if (k + g.cols >= g.n) draw_x_labels(c, g.x_labels, px, py + g.panel_h + m.label_pad, g.cell_w);
    }
    if (axes_once) {  // the layers x heads axes, once
      c.text(centre, g.top + m.panel_title * 1.3, "head", panel_style, HAlign::center, VAlign::bottom);
      c.text(g.left - g.row_title_w, g.bar_y + g.bar_h / 2, "layer", panel_style, HAlign::center, VAlign::top, true);
    }
    draw_colour_bar(c, bar, g.bar_x, g.bar_y, g.bar_h);
    if (legend) draw_masked_legend(c, colormap, g.bar_x, g.bar_y + g.bar_h + m.tick * 0.8, m.tick);
    const double left_edge = g.left - (g.y_labels.extent > 0 ? g.y_labels.extent + m.label_pad : 0) - g.row_title_w -
                             m.axis_pad - m.axis_title * 1.5;
    c.text(left_edge + m.axis_title * 0.75, g.bar_y + g.bar_h / 2, "query", axis_style, HAlign::center, VAlign::middle, true);
    c.text(centre, g.top + g.grid_h + 5 + (g.x_labels.extent > 0 ? g.x_labels.extent + m.label_pad : 0) + 1 + m.axis_title * 1.5,
           "key", axis_style, HAlign::center, VAlign::bottom);
  };
  return fig;
}

}  // namespace

Figure heatmap_figure(const RunAnalysis& analysis, int layer, int head, const ColourScale& colours,
                      const FigureStyle& style, const HeatmapFigureExtras& extras) {
  const AttentionRun& run = analysis.run;
  assert(layer >= 0 && layer < run.n_layers() && head < run.n_heads() && "checked by export_view");
  std::vector<HeatmapPanel> panels;
  const bool ordered = head < 0 && int(extras.order.size()) == run.n_heads();
  const MapMask mask = extras.mask ? *extras.mask : layer_mask(run, layer);
  if (head >= 0) panels.push_back({layer, head, mask});
  else if (ordered) for (int h : extras.order) panels.push_back({layer, h, mask});
  else for (int h = 0; h < run.n_heads(); ++h) panels.push_back({layer, h, mask});
  const bool grid = head < 0;
  const int n = int(panels.size());
  std::string title = figure_model_name(run) + " \u00b7 layer " + std::to_string(layer);
  if (!grid) title += " \u00b7 head " + std::to_string(head);
  else if (n == 1) title += " \u00b7 head 0";
  else title += " \u00b7 heads 0\u2013" + std::to_string(n - 1);
  if (grid && n > 1 && ordered) title += " (cluster order)";
  if (!extras.title.empty()) title = extras.title;
  return panels_figure(analysis, panels, grid, false, title, colours, style,
                       extras.bar_title.empty() ? "attention weight" : extras.bar_title);
}

Figure overview_figure(const RunAnalysis& analysis, const ColourScale& colours, const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  std::vector<HeatmapPanel> panels;
  for (int l = 0; l < run.n_layers(); ++l)
    for (int h = 0; h < run.n_heads(); ++h) panels.push_back({l, h, layer_mask(run, l)});
  assert(!panels.empty() && "checked by export_view");
  const std::string title = figure_model_name(run) + " \u00b7 layers 0\u2013" + std::to_string(run.n_layers() - 1) +
                            " \u00b7 heads 0\u2013" + std::to_string(run.n_heads() - 1);
  return panels_figure(analysis, panels, true, true, title, colours, style);
}

}  // namespace hs
