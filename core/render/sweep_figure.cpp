#include "core/render/sweep_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"
#include "core/render/table_figure.h"
#include "core/util/errors.h"

namespace hs {
namespace {

struct Series {
  std::vector<double> y;
  Rgb8 colour;
  bool dashed = false;
  bool markers = true;
  std::string legend;
  double line_width = 1.6;
};

struct SweepPanel {
  std::string title;
  std::vector<Series> series;
  Ticks ticks;
  double y_max = 1;
};

SweepPanel make_panel(std::string title, std::vector<Series> series, int max_ticks = 5) {
  SweepPanel p;
  p.title = std::move(title);
  p.series = std::move(series);
  double hi = 0;
  for (const Series& s : p.series)
    for (double v : s.y) hi = std::max(hi, v);
  if (!(hi > 0)) hi = 1;
  p.ticks = nice_ticks(0, hi * 1.08, max_ticks);
  // The axis ends at the first tick at or above the data (so the top gridline is labelled).
  const double step = p.ticks.values.size() > 1 ? p.ticks.values[1] - p.ticks.values[0] : hi;
  p.y_max = p.ticks.values.back() < hi ? p.ticks.values.back() + step : p.ticks.values.back();
  if (p.ticks.values.back() < p.y_max) p.ticks.values.push_back(p.y_max);
  return p;
}


// The sizes a sweep figure uses, points: the long-standing constants, or all from one text size.
struct SweepMetrics {
  double margin = kMargin, title = kTitleSize, subtitle = 9, panel_title = kPanelTitleSize, axis_title = kAxisTitleSize;
  double tick = kTickSize, legend = kTickSize, gap = 26, row_gap = 12, title_gap = 10;
  double line_scale = 1;  // line widths and marker sizes
};

SweepMetrics sweep_metrics(const FigureStyle& style) {
  SweepMetrics m;
  if (!style.styled()) return m;
  const double f = style.text_size();
  m.margin = std::max(2.0, 0.5 * f);
  m.title = 1.15 * f, m.subtitle = f, m.panel_title = f, m.axis_title = f, m.tick = f, m.legend = f;
  m.gap = 1.5 * f, m.row_gap = 0.8 * f, m.title_gap = 0.6 * f;
  m.line_scale = std::clamp(f / 10.0, 0.5, 1.5);
  return m;
}

// One legend entry: a 20-point line sample (times line_scale) and its text in lines.
struct LegendItem {
  std::vector<std::string> lines;
  double width = 0;
};

// Legend rows: items side by side while they fit `room` (an item wider than it wraps its text).
struct LegendLayout {
  std::vector<std::vector<size_t>> rows;  // item indices per row
  std::vector<LegendItem> items;
  double width = 0, height = 0;
};

LegendLayout lay_out_legend(MeasureCanvas& mc, const std::vector<Series>& legend, const SweepMetrics& m, double room, bool stacked) {
  LegendLayout l;
  const TextStyle style{m.legend, false, {0, 0, 0}};
  const double sample = 26 * m.line_scale, after = 16 * m.line_scale, line_h = m.legend * 1.35;
  for (const Series& s : legend) {
    LegendItem item;
    item.lines = wrap_text(mc, s.legend, style, std::max(room - sample, 1.0));
    for (const std::string& line : item.lines) item.width = std::max(item.width, sample + mc.width(line, style));
    l.items.push_back(item);
  }
  double row_w = 0;
  for (size_t k = 0; k < l.items.size(); ++k) {
    const double w = l.items[k].width + (l.rows.empty() || l.rows.back().empty() ? 0 : after);
    if (l.rows.empty() || stacked || row_w + w > room + 1e-9) {
      l.rows.push_back({k});
      row_w = l.items[k].width;
    } else {
      l.rows.back().push_back(k);
      row_w += w;
    }
    l.width = std::max(l.width, row_w);
  }
  for (const auto& row : l.rows) {
    size_t lines = 1;
    for (size_t k : row) lines = std::max(lines, l.items[k].lines.size());
    l.height += double(lines) * line_h + 0.3 * m.legend;
  }
  return l;
}

}  // namespace

// The sweep at the style's text size (sweep_figure: at the floor when the page is too small for it).
static Figure sweep_figure_at(const RunAnalysis& analysis, const Sweep& sweep, Colormap colormap, const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  const std::vector<SweepPoint>& points = sweep.points;
  const int seeds = kSweepSeeds;
  assert(!points.empty() && "head_count_sweep returns at least the one-head point");
  const size_t n = points.size();
  const SweepMetrics m = sweep_metrics(style);
  const Rgb8 first = colormap_lookup(colormap, colormap_is_diverging(colormap) ? 0.1f : 0.15f);
  const Rgb8 second = colormap_lookup(colormap, colormap_is_diverging(colormap) ? 0.9f : 0.6f);
  const Rgb8 grey = {215, 215, 215};

  Series diff{{}, first, false, true, ""}, entropy{{}, first, false, true, ""};
  Series erank{{}, first, false, true, "effective rank of A_h"};
  Series srank{{}, second, true, true, "numerical rank of scores S_h"};
  Series width{{}, grey, false, false, "d_head = d_model / heads (the most S_h can have)"};
  // Okabe-Ito vermillion: apart from the colormap's two, on any colormap.
  Series reach{{}, {213, 94, 0}, false, true, "reachable keys (a query can make each its top key)"};
  width.line_width = 5;
  for (Series* s : {&diff, &entropy, &erank, &srank, &width, &reach}) s->line_width *= m.line_scale;
  std::vector<std::string> x_names;
  for (const SweepPoint& p : points) {
    diff.y.push_back(p.mean_head_distance);  // NaN at one head: no pair, no point
    entropy.y.push_back(p.mean_entropy);
    erank.y.push_back(p.mean_effective_rank);
    srank.y.push_back(p.mean_score_rank);
    width.y.push_back(p.d_head);
    reach.y.push_back(p.mean_reachable_keys);
    x_names.push_back(std::to_string(p.n_heads));
  }
  std::vector<SweepPanel> panels = {make_panel("mean head distance (0\u20131)", {diff}),
                                make_panel("mean row entropy (nats)", {entropy}),
                                make_panel("rank and reachable keys per head", {width, srank, erank, reach})};

  const std::string title = style.title.empty() ? figure_model_name(run) + " \u00b7 head-count sweep" : style.title;
  const bool show_title = style.show_title;
  const std::string subtitle = "d_model " + std::to_string(run.info.d_model) + " \u00b7 " +
                               std::to_string(run.n_tokens()) + " tokens \u00b7 mean of " + std::to_string(seeds) +
                               " seeds \u00b7 " + std::to_string(points.front().param_count) +
                               " parameters at every head count";
  const TextStyle subtitle_style{m.subtitle, false, {80, 80, 80}};
  const TextStyle panel_style{m.panel_title, false, {0, 0, 0}};
  const TextStyle axis_style{m.axis_title, false, {0, 0, 0}};
  const TextStyle tick_style{m.tick, false, {0, 0, 0}};
  const TextStyle legend_style{m.legend, false, {0, 0, 0}};
  const std::vector<Series> legend = {erank, srank, width, reach};

  MeasureCanvas mc(style.font);
  double tick_w = 0;
  for (const SweepPanel& p : panels)
    for (double v : p.ticks.values) tick_w = std::max(tick_w, mc.width(format_number(v, p.ticks.decimals), tick_style));
  // The panel titles fitted to a plot's width (figure_text.h): wrapped onto two lines, smaller, shortened.
  std::vector<FittedText> panel_titles(panels.size());
  double panel_title_h = m.panel_title * 1.7;
  const auto fit_panel_titles = [&](double room) {
    panel_title_h = 0;
    for (size_t k = 0; k < panels.size(); ++k) {
      panel_titles[k] = fit_text(mc, panels[k].title, panel_style, room);
      // Under it the top tick label's upper half (0.6 x its size).
      panel_title_h = std::max(panel_title_h, panel_titles[k].height() + 0.6 * m.tick + 2);
    }
  };
  fit_panel_titles(1e9);
  const double below_h = 5 + m.tick * 1.3 + 4 + m.axis_title * 1.5;  // tick labels, "heads"
  const bool sized = style.sized();
  const double page_w = style.page_width, page_h = style.page_height;
  // The title fitted to the page's width (figure_text.h).
  const FittedText title_fit = fit_title(mc, title, m.title, page_w, m.margin, show_title);
  // The plot arrangement: cols x rows panels of plot_w x plot_h, the legend under them or (2 x 2)
  // in the free corner.
  int cols = 3;
  double plot_w = 200, plot_h = 150;
  std::vector<std::string> subtitle_lines = {subtitle};
  LegendLayout leg;
  bool legend_in_corner = false;
  auto header_h = [&](size_t subtitle_count) {
    return m.margin + title_fit.height() + double(subtitle_count) * m.subtitle * 1.4 + m.title_gap;
  };
  if (!sized) {
    leg = lay_out_legend(mc, legend, m, 1e9, false);
  } else {
    const double content = page_w > 0 ? page_w - 2 * m.margin : 0;
    if (page_w > 0) subtitle_lines = wrap_text(mc, subtitle, subtitle_style, content);
    double best = 0;
    for (int c : {3, 2, 1}) {
      const int rows = (3 + c - 1) / c;
      const bool corner = c == 2;
      double w = page_w > 0 ? (content - c * (tick_w + 6) - (c - 1) * m.gap) / c : 0;
      if (page_w > 0) fit_panel_titles(tick_w + 6 + w);
      const double legend_room = page_w > 0 ? (corner ? tick_w + 6 + w : content) : 1e9;
      const LegendLayout l = lay_out_legend(mc, legend, m, legend_room, corner);
      const double fixed = header_h(subtitle_lines.size()) + rows * (panel_title_h + below_h) + (rows - 1) * m.row_gap +
                           (corner ? 0 : 6 + l.height) + m.margin;
      double h = page_h > 0 ? (page_h - fixed) / rows : 0;
      if (page_w <= 0) w = h * 4 / 3;
      if (page_h <= 0) h = w * 3 / 4;
      if (corner && l.height > panel_title_h + h + below_h) continue;
      if (w < 3 * m.tick || h < 2 * m.tick) continue;
      const double score = std::min(w, h * 4 / 3);  // the natural plots' 4:3
      if (score > best) best = score, cols = c, plot_w = w, plot_h = h, leg = l, legend_in_corner = corner;
    }
    if (!(best > 0)) {
      throw InputError("a page of " + format_pt(page_w) + " x " + format_pt(page_h) +
                       " pt is too small for the sweep with " + format_pt(style.text_size()) +
                       " pt text (give a larger --size or a smaller --font-size)");
    }
  }
  if (sized && page_w > 0) fit_panel_titles(tick_w + 6 + plot_w);
  // As many y ticks as the plot's height holds apart (at most 5).
  for (SweepPanel& p : panels) p = make_panel(p.title, p.series, std::clamp(int(plot_h / (m.tick * 1.6)), 2, 5));
  const int rows = (3 + cols - 1) / cols;
  const double block_w = tick_w + 6 + plot_w;
  const double content_w = cols * block_w + (cols - 1) * m.gap;
  const double plots_top = header_h(subtitle_lines.size()) + panel_title_h;
  const double row_h = panel_title_h + plot_h + below_h + m.row_gap;
  const double plots_end = plots_top - panel_title_h + rows * row_h - m.row_gap;
  double title_w = title_fit.width;
  for (const std::string& line : subtitle_lines) title_w = std::max(title_w, mc.width(line, subtitle_style));
  double fig_w = 2 * m.margin + std::max({content_w, sized ? 0.0 : title_w, legend_in_corner ? 0.0 : leg.width});
  double fig_h = plots_end + (legend_in_corner ? 0 : 6 + leg.height) + m.margin;
  double oy = 0;
  if (sized) {
    if (page_w > 0) fig_w = page_w;
    if (page_h > 0) oy = 0.5 * (page_h - fig_h), fig_h = page_h;
  }

  Figure fig;
  fig.title = title;
  fig.font = style.font;
  fig.width = fig_w;
  fig.height = fig_h;
  const double line_h = m.legend * 1.35;
  fig.draw = [=](Canvas& c) {
    const double x0 = m.margin + (fig_w - 2 * m.margin - content_w) / 2;
    double y = oy + m.margin;
    draw_fitted(c, title_fit, fig_w / 2, y, HAlign::center);
    y += title_fit.height();
    for (const std::string& line : subtitle_lines) {
      c.text(fig_w / 2, y + 2, line, subtitle_style, HAlign::center, VAlign::top);
      y += m.subtitle * 1.4;
    }
    const double marker = 2.6 * m.line_scale;
    for (size_t k = 0; k < panels.size(); ++k) {
      const SweepPanel& p = panels[k];
      const double px = x0 + double(k % size_t(cols)) * (block_w + m.gap) + tick_w + 6;
      const double top = oy + plots_top + double(k / size_t(cols)) * row_h;
      const double bottom = top + plot_h;
      auto y_of = [&](double v) { return bottom - plot_h * v / p.y_max; };
      auto x_of = [&](size_t i) { return px + plot_w * (double(i) + 0.5) / double(n); };
      const FittedText& pt = panel_titles[k];
      draw_fitted(c, pt, px - (tick_w + 6) / 2 + plot_w / 2, top - 0.6 * m.tick - 2 - pt.height(), HAlign::center);
      for (double v : p.ticks.values) {
        c.line(px, y_of(v), px + plot_w, y_of(v), kGridColour, 0.5);
        c.text(px - 5, y_of(v), format_number(v, p.ticks.decimals), tick_style, HAlign::right, VAlign::middle);
      }
      // Head counts along x: every one that fits beside its neighbours.
      double widest = 0;
      for (const std::string& name : x_names) widest = std::max(widest, c.text_width(name, tick_style));
      const size_t step = std::max<size_t>(1, size_t(std::ceil((widest + 3) / (plot_w / double(n)) - 1e-9)));
      for (size_t i = 0; i < n; ++i) {
        c.line(x_of(i), bottom, x_of(i), bottom + 3, kFrameColour, 0.6);
        if (i % step == 0) c.text(x_of(i), bottom + 5, x_names[i], tick_style, HAlign::center, VAlign::top);
      }
      for (const Series& s : p.series) {
        for (size_t i = 0; i + 1 < n; ++i)
          if (std::isfinite(s.y[i]) && std::isfinite(s.y[i + 1]))
            c.line(x_of(i), y_of(s.y[i]), x_of(i + 1), y_of(s.y[i + 1]), s.colour, s.line_width, s.dashed);
        if (s.markers)
          for (size_t i = 0; i < n; ++i)
            if (std::isfinite(s.y[i])) c.circle(x_of(i), y_of(s.y[i]), marker, s.colour);
      }
      c.stroke_rect(px, top, plot_w, plot_h, kFrameColour, 0.6);
      c.text(px + plot_w / 2, bottom + 5 + m.tick * 1.3 + 4, "heads", axis_style, HAlign::center, VAlign::top);
    }
    // Legend of the rank panel: centred under the plots, or in the free corner of a 2 x 2.
    const double sample = 20 * m.line_scale, text_x = 26 * m.line_scale, after = 16 * m.line_scale;
    double ly = legend_in_corner ? oy + plots_top + row_h : oy + plots_end + 6;
    const double corner_x = x0 + block_w + m.gap;
    for (const auto& row : leg.rows) {
      double row_w = 0;
      size_t lines = 1;
      for (size_t k : row) row_w += leg.items[k].width + (k == row.front() ? 0 : after), lines = std::max(lines, leg.items[k].lines.size());
      double lx = legend_in_corner ? corner_x : (fig_w - row_w) / 2;
      for (size_t k : row) {
        const Series& s = legend[k];
        const double mid = ly + line_h / 2;
        c.line(lx, mid, lx + sample, mid, s.colour, s.line_width, s.dashed);
        if (s.markers) c.circle(lx + sample / 2, mid, marker, s.colour);
        for (size_t j = 0; j < leg.items[k].lines.size(); ++j)
          c.text(lx + text_x, mid + line_h * double(j), leg.items[k].lines[j], legend_style, HAlign::left, VAlign::middle);
        lx += leg.items[k].width + after;
      }
      ly += double(lines) * line_h + 0.3 * m.legend;
    }
  };
  return fig;
}

Figure sweep_figure(const RunAnalysis& analysis, const Sweep& sweep, Colormap colormap, const FigureStyle& style) {
  if (!style.sized() || style.text_size() <= kMinTextSize) return sweep_figure_at(analysis, sweep, colormap, style);
  try {
    return sweep_figure_at(analysis, sweep, colormap, style);
  } catch (const InputError&) {
    // A page too small at the text size: the text at the 6 pt floor (figure_text.h).
    FigureStyle small = style;
    small.font_size = kMinTextSize;
    return sweep_figure_at(analysis, sweep, colormap, small);
  }
}

}  // namespace hs
