#include "core/render/query_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/analysis/query_profile.h"
#include "core/render/canvas.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"
#include "core/render/map_mask.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// Bars of the natural layout: at most this many across (more keys are grouped, as the app does).
constexpr int kMaxBars = 300;
constexpr Rgb8 kQueryMark = {214, 96, 20};

std::string query_title(const AttentionRun& run, int layer, const std::vector<int>& queries) {
  std::string what = queries.size() == 1
                         ? "where \u201c" + display_label(run.tokens, size_t(queries[0]), nullptr, SpaceMark::dot) + "\u201d (token " +
                               std::to_string(queries[0]) + ") looks"
                         : "where " + std::to_string(queries.size()) + " query tokens look (rows summed)";
  return figure_model_name(run) + " \u00b7 layer " + std::to_string(layer) + " \u00b7 " + what;
}

}  // namespace

Figure query_figure(const RunAnalysis& analysis, int layer, const std::vector<int>& queries, Colormap colormap,
                    const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  const int H = run.n_heads(), T = run.n_tokens();
  assert(layer >= 0 && layer < run.n_layers() && !queries.empty() && "checked by export");
  const int per = T > kMaxBars ? (T + kMaxBars - 1) / kMaxBars : 1;
  const Map profile = binned_max(query_profile(run, layer, queries), per);  // [H, bars]
  const int bars = int(profile.cols());
  const float top = std::max(profile.size() > 0 ? profile.maxCoeff() : 0.0f, 1e-6f);
  // A key no chosen query may see (every one of them masked from it): the masked colour.
  const MapMask mask = layer_mask(run, layer);  // the layer's mask travels with its maps (map_mask.h)
  std::vector<bool> masked(size_t(bars), false), is_query(size_t(bars), false);
  for (int b = 0; b < bars; ++b) {
    bool all = true;
    for (int j = b * per; j < std::min(T, (b + 1) * per); ++j)
      for (int q : queries) all = all && mask.hides_token(q, j);
    masked[size_t(b)] = all;
  }
  for (int q : queries) is_query[size_t(q / per)] = true;
  const bool legend = std::find(masked.begin(), masked.end(), true) != masked.end();

  const bool styled = style.styled();
  const double f = styled ? style.text_size() : kTickSize;
  const double margin = styled ? std::max(2.0, 0.5 * f) : kMargin, title_size = styled ? 1.15 * f : kTitleSize;
  const double floor = styled ? std::min(kMinTextSize, f) : 5.5;
  const double axis_size = styled ? f : kAxisTitleSize, value_size = 0.8 * f;
  const std::string title = style.title.empty() ? query_title(run, layer, queries) : style.title;
  std::vector<std::string> head_names, key_names;
  for (int h = 0; h < H; ++h) head_names.push_back("head " + std::to_string(h));
  for (int b = 0; b < bars; ++b)
    key_names.push_back(per == 1 ? run.tokens[size_t(b)]
                                 : std::to_string(b * per) + "\u2013" + std::to_string(std::min(T, (b + 1) * per) - 1));
  ColourBar bar;
  bar.colormap = colormap;
  bar.lo = 0;
  bar.hi = top;
  bar.title = queries.size() == 1 ? "attention weight" : "summed weight";
  if (per > 1) bar.title = "largest " + bar.title + " of a bar's keys";
  if (style.colorbar_label) bar.title = *style.colorbar_label;
  bar.tick_size = f, bar.title_size = axis_size, bar.width = styled ? std::max(5.0, 0.9 * f) : kBarWidth;

  MeasureCanvas mc(style.font);
  const TextStyle name_style{f, false, {0, 0, 0}};
  double names_w = 0;
  for (const std::string& n : head_names) names_w = std::max(names_w, mc.width(n, name_style));
  // The title fitted to the page's width (figure_text.h); the natural layout widens to it.
  const FittedText title_fit = fit_title(mc, title, title_size, style.page_width, margin, style.show_title);
  const double title_h = style.show_title ? margin + title_fit.height() + 0.5 * f : margin;
  const double left = margin + names_w + 0.6 * f;
  const double bar_gap = 1.2 * f + 4;
  auto lay_labels = [&](double col) {
    return layout_axis_labels(mc, key_names, col, true, styled ? f : 9.0, floor, label_every(style), style.space_mark);
  };
  // Natural: columns as the heatmap's cells, rows tall enough for a value above a bar; a page
  // stretches both to fill it.
  double col = std::clamp(480.0 / bars, 3.0, 36.0), row = std::max({2.9 * f, 28.0, 200.0 / H});  // few heads: rows tall enough for the bar's title
  AxisLabels labels = lay_labels(col);
  auto below = [&](const AxisLabels& l) { return 5 + (l.extent > 0 ? l.extent + 3 : 0) + 5 + axis_size * 1.5 + margin; };
  double bar_w = colour_bar_width(mc, bar, row * H);
  if (legend) bar_w = std::max(bar_w, masked_legend_width(mc, f));
  double width = left + col * bars + bar_gap + bar_w + margin;
  if (style.sized()) {
    if (style.page_width > 0) col = (style.page_width - (width - col * bars)) / bars;
    labels = lay_labels(col);
    if (style.page_height > 0) row = (style.page_height - title_h - below(labels)) / H;
    if (!(col > 0.5 && row > f)) {
      throw InputError("a page of " + std::to_string(int(std::lround(style.page_width))) + " x " +
                       std::to_string(int(std::lround(style.page_height))) + " pt is too small for the query view's " +
                       std::to_string(H) + " rows of " + std::to_string(bars) + " bars (give a larger --size or a smaller --font-size)");
    }
    width = left + col * bars + bar_gap + bar_w + margin;
  }
  Figure fig;
  fig.title = title;
  fig.font = style.font;
  fig.width = style.page_width > 0 ? style.page_width : std::max(width, title_fit.width + 2 * margin);
  if (!labels.note.empty()) fig.notes.push_back(labels.note);
  fig.height = style.page_height > 0 ? style.page_height : title_h + row * H + below(labels);
  fig.cells.push_back({left, title_h, col * bars, row * H, H, bars});
  const bool show_title = style.show_title;
  const double fig_w = fig.width;
  fig.draw = [=](Canvas& c) {
    if (show_title) draw_fitted(c, title_fit, fig_w / 2, margin, HAlign::center);
    const Rgb8 masked_colour = cell_lookup(colormap, kMaskedT);
    const TextStyle value_style{value_size, false, {70, 70, 70}};
    for (int h = 0; h < H; ++h) {
      const double y0 = title_h + h * row, y1 = y0 + row * 0.88;  // the bars' baseline; a gap to the next row
      if (h % 2 == 0) c.fill_rect(left, y0, col * bars, row, {247, 247, 247});
      c.text(left - 0.6 * f, (y0 + y1) / 2, head_names[size_t(h)], name_style, HAlign::right, VAlign::middle);
      for (int b = 0; b < bars; ++b) {
        const double x0 = left + b * col + col * 0.1, w = col * 0.8;
        if (masked[size_t(b)]) {  // the whole slot, so that a run of masked keys reads as one band
          c.fill_rect(left + b * col, y0 + 2, col, y1 - y0 - 2, masked_colour);
          continue;
        }
        const float v = profile(h, b), t = v / top;
        const double yb = y1 - t * (y1 - y0 - 2);
        const Rgb8 colour = colormap_lookup(colormap, t);
        if (v > 0) c.fill_rect(x0, yb, w, y1 - yb, colour);
        // The weight above its bar when there is room for it, else inside the bar's top (as the app).
        const std::string value = format_number(v, 2);
        if (!(v >= 0.005f && row >= 2.6 * f && c.text_width(value, value_style) + 2 < col)) continue;  // not "0.00"
        if (yb - value_size * 1.1 >= y0) {
          c.text(x0 + w / 2, yb - 1, value, value_style, HAlign::center, VAlign::bottom);
        } else {
          TextStyle inside = value_style;
          inside.colour = ink_on(colour);
          c.text(x0 + w / 2, yb + 1, value, inside, HAlign::center, VAlign::top);
        }
      }
      c.line(left, y1, left + col * bars, y1, {170, 170, 170}, 0.5);
    }
    const double axis_y = title_h + row * H;
    c.stroke_rect(left, title_h, col * bars, row * H, kFrameColour, 0.6);
    for (int b = 0; b < bars; ++b)
      if (is_query[size_t(b)]) c.fill_rect(left + b * col, axis_y + 1, col, 3, kQueryMark);
    draw_x_labels(c, labels, left, axis_y + 5, col);
    const TextStyle axis_style{axis_size, false, {0, 0, 0}};
    const std::string key_title = per == 1 ? "key (query tokens marked in orange)"
                                           : "keys, " + std::to_string(per) + " per bar (query tokens marked in orange)";
    MeasureCanvas m(c.family());
    const FittedText key_fit = fit_text(m, key_title, axis_style, fig_w - 2 * margin, 1, floor);
    const double key_x = std::clamp(left + col * bars / 2, margin + key_fit.width / 2, fig_w - margin - key_fit.width / 2);
    draw_fitted(c, key_fit, key_x, axis_y + 5 + (labels.extent > 0 ? labels.extent + 3 : 0) + 5, HAlign::center);
    const double bx = left + col * bars + bar_gap;
    draw_colour_bar(c, bar, bx, title_h, row * H);
    if (legend) draw_masked_legend(c, colormap, bx, title_h + row * H + f * 0.8, f);
  };
  return fig;
}

}  // namespace hs
