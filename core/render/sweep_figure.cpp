#include "core/render/sweep_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"

namespace hs {
namespace {

constexpr double kPlotW = 200, kPlotH = 150, kPanelGap = 26;

struct Series {
  std::vector<double> y;
  Rgb8 colour;
  bool dashed = false;
  bool markers = true;
  std::string legend;
  double line_width = 1.6;
};

struct Panel {
  std::string title;
  std::vector<Series> series;
  Ticks ticks;
  double y_max = 1;
};

Panel make_panel(std::string title, std::vector<Series> series) {
  Panel p;
  p.title = std::move(title);
  p.series = std::move(series);
  double hi = 0;
  for (const Series& s : p.series)
    for (double v : s.y) hi = std::max(hi, v);
  if (!(hi > 0)) hi = 1;
  p.ticks = nice_ticks(0, hi * 1.08, 5);
  // The axis ends at the first tick at or above the data (so the top gridline is labelled).
  const double step = p.ticks.values.size() > 1 ? p.ticks.values[1] - p.ticks.values[0] : hi;
  p.y_max = p.ticks.values.back() < hi ? p.ticks.values.back() + step : p.ticks.values.back();
  if (p.ticks.values.back() < p.y_max) p.ticks.values.push_back(p.y_max);
  return p;
}

}  // namespace

Figure sweep_figure(const RunAnalysis& analysis, const Sweep& sweep, Colormap colormap) {
  const AttentionRun& run = analysis.run;
  const std::vector<SweepPoint>& points = sweep.points;
  const int seeds = kSweepSeeds;
  assert(!points.empty() && "head_count_sweep returns at least the one-head point");
  const size_t n = points.size();
  const Rgb8 first = colormap_lookup(colormap, colormap_is_diverging(colormap) ? 0.1f : 0.15f);
  const Rgb8 second = colormap_lookup(colormap, colormap_is_diverging(colormap) ? 0.9f : 0.6f);
  const Rgb8 grey = {215, 215, 215};

  Series diff{{}, first, false, true, ""}, entropy{{}, first, false, true, ""};
  Series erank{{}, first, false, true, "effective rank of A_h"};
  Series srank{{}, second, true, true, "numerical rank of scores S_h"};
  Series width{{}, grey, false, false, "d_head = d_model / heads (the most S_h can have)"};
  width.line_width = 5;
  std::vector<std::string> x_names;
  for (const SweepPoint& p : points) {
    diff.y.push_back(p.mean_head_distance);  // NaN at one head: no pair, no point
    entropy.y.push_back(p.mean_entropy);
    erank.y.push_back(p.mean_effective_rank);
    srank.y.push_back(p.mean_score_rank);
    width.y.push_back(p.d_head);
    x_names.push_back(std::to_string(p.n_heads));
  }
  const std::vector<Panel> panels = {make_panel("mean head distance (0\u20131)", {diff}),
                                     make_panel("mean row entropy (nats)", {entropy}),
                                     make_panel("rank per head", {width, srank, erank})};

  const std::string title = figure_model_name(run) + " \u00b7 head-count sweep";
  const std::string subtitle = "d_model " + std::to_string(run.info.d_model) + " \u00b7 " +
                               std::to_string(run.n_tokens()) + " tokens \u00b7 mean of " + std::to_string(seeds) +
                               " seeds \u00b7 " + std::to_string(points.front().param_count) +
                               " parameters at every head count";
  const TextStyle title_style{kTitleSize, true, {0, 0, 0}};
  const TextStyle subtitle_style{9, false, {80, 80, 80}};
  const TextStyle panel_style{kPanelTitleSize, false, {0, 0, 0}};
  const TextStyle axis_style{kAxisTitleSize, false, {0, 0, 0}};
  const TextStyle tick_style{kTickSize, false, {0, 0, 0}};
  const TextStyle legend_style{kTickSize, false, {0, 0, 0}};

  MeasureCanvas m;
  double tick_w = 0;
  for (const Panel& p : panels)
    for (double v : p.ticks.values) tick_w = std::max(tick_w, m.width(format_number(v, p.ticks.decimals), tick_style));
  const double block_w = tick_w + 6 + kPlotW;
  const double plots_top = kMargin + kTitleSize * 1.4 + 9 * 1.4 + 10 + kPanelTitleSize * 1.7;
  const double plots_bottom = plots_top + kPlotH;
  const double legend_y = plots_bottom + 5 + kTickSize * 1.3 + 4 + kAxisTitleSize * 1.5 + 8;
  const std::vector<Series> legend = {erank, srank, width};
  std::vector<double> legend_item_w;
  double legend_w = 0;
  for (const Series& s : legend) {
    legend_item_w.push_back(26 + m.width(s.legend, legend_style) + 16);
    legend_w += legend_item_w.back();
  }
  const double title_w = std::max(m.width(title, title_style), m.width(subtitle, subtitle_style));
  const double content_w = 3 * block_w + 2 * kPanelGap;
  const double fig_w = 2 * kMargin + std::max({content_w, title_w, legend_w});
  const double fig_h = legend_y + kTickSize * 1.5 + kMargin;

  Figure fig;
  fig.title = title;
  fig.width = fig_w;
  fig.height = fig_h;
  fig.draw = [=](Canvas& c) {
    const double x0 = kMargin + (fig_w - 2 * kMargin - content_w) / 2;
    c.text(fig_w / 2, kMargin, title, title_style, HAlign::center, VAlign::top);
    c.text(fig_w / 2, kMargin + kTitleSize * 1.4 + 2, subtitle, subtitle_style, HAlign::center, VAlign::top);
    for (size_t k = 0; k < panels.size(); ++k) {
      const Panel& p = panels[k];
      const double px = x0 + k * (block_w + kPanelGap) + tick_w + 6;
      auto y_of = [&](double v) { return plots_bottom - kPlotH * v / p.y_max; };
      auto x_of = [&](size_t i) { return px + kPlotW * (double(i) + 0.5) / double(n); };
      c.text(px + kPlotW / 2, plots_top - 5, p.title, panel_style, HAlign::center, VAlign::bottom);
      for (double v : p.ticks.values) {
        c.line(px, y_of(v), px + kPlotW, y_of(v), kGridColour, 0.5);
        c.text(px - 5, y_of(v), format_number(v, p.ticks.decimals), tick_style, HAlign::right, VAlign::middle);
      }
      for (size_t i = 0; i < n; ++i) {
        c.line(x_of(i), plots_bottom, x_of(i), plots_bottom + 3, kFrameColour, 0.6);
        c.text(x_of(i), plots_bottom + 5, x_names[i], tick_style, HAlign::center, VAlign::top);
      }
      for (const Series& s : p.series) {
        for (size_t i = 0; i + 1 < n; ++i)
          if (std::isfinite(s.y[i]) && std::isfinite(s.y[i + 1]))
            c.line(x_of(i), y_of(s.y[i]), x_of(i + 1), y_of(s.y[i + 1]), s.colour, s.line_width, s.dashed);
        if (s.markers)
          for (size_t i = 0; i < n; ++i)
            if (std::isfinite(s.y[i])) c.circle(x_of(i), y_of(s.y[i]), 2.6, s.colour);
      }
      c.stroke_rect(px, plots_top, kPlotW, kPlotH, kFrameColour, 0.6);
      c.text(px + kPlotW / 2, plots_bottom + 5 + kTickSize * 1.3 + 4, "heads", axis_style, HAlign::center, VAlign::top);
    }
    // Legend of the rank panel, centred under the plots.
    double lx = (fig_w - legend_w) / 2;
    for (size_t k = 0; k < legend.size(); ++k) {
      const Series& s = legend[k];
      c.line(lx, legend_y, lx + 20, legend_y, s.colour, s.line_width, s.dashed);
      if (s.markers) c.circle(lx + 10, legend_y, 2.6, s.colour);
      c.text(lx + 26, legend_y, s.legend, legend_style, HAlign::left, VAlign::middle);
      lx += legend_item_w[k];
    }
  };
  return fig;
}

}  // namespace hs
