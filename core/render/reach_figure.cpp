#include "core/render/reach_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr int kColumns = 8;                 // tiles a row
constexpr Rgb8 kOpen = {175, 175, 175};     // an unreachable key's mark
constexpr Rgb8 kChart = {213, 94, 0};       // the error line (Okabe-Ito vermillion)

// One small map: its title, cells and which key columns some query can make its top key.
struct Tile {
  std::string title;
  const Map* map = nullptr;  // [T, T]
  std::vector<bool> reachable;
};

struct TileRow {
  std::string heading;
  std::vector<Tile> tiles;
};

std::vector<bool> marks(int T, const std::vector<int>& keys) {
  std::vector<bool> out(size_t(T), false);
  for (int j : keys) out[size_t(j)] = true;
  return out;
}

std::string count_text(const std::vector<int>& keys, int T) {
  return std::to_string(keys.size()) + " of " + std::to_string(T) + " keys";
}

// The figure's pieces laid out at one map side: text fitted to the content's width.
struct ReachLayout {
  double f = kTickSize, heading = kPanelTitleSize, title_size = kTitleSize;
  double side = 90, strip = 5, gap = 10, content_w = 0;
  int cols = kColumns;
  FittedText title, chart_title;
  std::vector<FittedText> headings, legend;
  double chart_h = 0, height = 0;

  double tile_title_h() const { return 3 * f * 1.3; }
  double tile_h() const { return tile_title_h() + side + strip + 4 + gap; }
  double row_h(size_t k, size_t tiles) const {
    return headings[k].height() + f * 0.4 + double((tiles + size_t(cols) - 1) / size_t(cols)) * tile_h();
  }
};

const char* const kLegendYes = "\u25a0 some query can make this key its top key";
const char* const kLegendNo = "\u25a1 no query can (its column washed out); each map on its own range";
const char* const kChartTitle = "error per width: mean per-row total variation to the target (0 exact)";

// content_w 0: as wide as the tiles need (natural size).
ReachLayout lay_out(MeasureCanvas& mc, const std::vector<TileRow>& rows, bool chart, const std::string& title,
                    const FigureStyle& style, double side, double content_w, int T) {
  ReachLayout l;
  if (style.styled()) l.f = l.heading = style.text_size(), l.title_size = style.text_size() * 1.15;
  l.side = side;
  l.strip = std::clamp(0.5 * side / T, 2.0, 6.0);
  l.gap = l.f * 1.2;
  size_t widest = 1;
  for (const TileRow& r : rows) widest = std::max(widest, r.tiles.size());
  l.cols = content_w > 0 ? std::clamp(int((content_w + l.gap) / (side + l.gap)), 1, kColumns) : int(std::min<size_t>(widest, kColumns));
  l.content_w = content_w > 0 ? content_w : std::max(double(l.cols) * (side + l.gap) - l.gap, 30 * l.f);
  const double floor = style.styled() ? kMinTextSize : 5.5;
  if (style.show_title) l.title = fit_text(mc, title, TextStyle{l.title_size, true, {0, 0, 0}}, l.content_w, 2, floor);
  for (const TileRow& r : rows) l.headings.push_back(fit_text(mc, r.heading, TextStyle{l.heading, true, {0, 0, 0}}, l.content_w, 3, floor));
  const TextStyle small{l.f, false, {60, 60, 60}};
  for (const char* text : {kLegendYes, kLegendNo}) l.legend.push_back(fit_text(mc, text, small, l.content_w, 3, floor));
  l.height = kMargin + (style.show_title ? l.title.height() + l.f * 0.6 : 0) + kMargin;
  for (size_t k = 0; k < rows.size(); ++k) l.height += l.row_h(k, rows[k].tiles.size());
  if (chart) {
    l.chart_title = fit_text(mc, kChartTitle, TextStyle{l.f, false, {0, 0, 0}}, l.content_w, 3, floor);
    l.chart_h = l.chart_title.height() + std::max(5.0 * l.f, 0.8 * side) + 3.2 * l.f;
    l.height += l.chart_h;
  }
  for (const FittedText& t : l.legend) l.height += t.height();
  return l;
}

// The map's cells on its own range, the key columns no query can make its top key washed out
// toward white, the strip of marks under it; its title in up to three short lines above.
void draw_tile(Canvas& c, const Tile& t, double x, double y, const ReachLayout& l, Colormap colormap) {
  const TextStyle style{l.f, false, {0, 0, 0}};
  MeasureCanvas mc(c.family());
  std::string rest = t.title;  // up to three lines
  for (int line = 0; line < 3 && !rest.empty(); ++line) {
    const size_t cut = rest.find('\n');
    c.text(x, y + l.f * (1 + 1.3 * line), shorten_text(mc, rest.substr(0, cut), style, l.side + l.gap * 0.8), style,
           HAlign::left, VAlign::baseline);
    rest = cut == std::string::npos ? "" : rest.substr(cut + 1);
  }
  const int T = int(t.map->rows());
  const double top = y + l.tile_title_h(), cell = l.side / T;
  const float hi = std::max(t.map->maxCoeff(), 1e-12f);
  std::vector<Rgb8> colours;
  for (Eigen::Index i = 0; i < t.map->size(); ++i) {
    Rgb8 rgb = colormap_lookup(colormap, t.map->data()[i] / hi);
    if (!t.reachable.empty() && !t.reachable[size_t(i % T)])
      for (uint8_t* ch : {&rgb.r, &rgb.g, &rgb.b}) *ch = uint8_t(*ch + (255 - *ch) * 0.6);
    colours.push_back(rgb);
  }
  c.cells(x, top, l.side, l.side, T, T, colours);
  c.stroke_rect(x, top, l.side, l.side, kFrameColour, 0.5);
  for (int j = 0; j < T && !t.reachable.empty(); ++j) {
    const double cx = x + (j + 0.5) * cell, sy = top + l.side + 2;
    if (t.reachable[size_t(j)]) c.fill_rect(cx - cell * 0.35, sy, cell * 0.7, l.strip, kFrameColour);
    else c.stroke_rect(cx - cell * 0.35, sy, cell * 0.7, l.strip, kOpen, 0.6);
  }
}

void draw_row(Canvas& c, const TileRow& row, const FittedText& heading, double x0, double y, const ReachLayout& l,
              Colormap colormap) {
  draw_fitted(c, heading, x0, y, HAlign::left);
  y += heading.height() + l.f * 0.4;
  for (size_t k = 0; k < row.tiles.size(); ++k) {
    const double x = x0 + double(k % size_t(l.cols)) * (l.side + l.gap);
    draw_tile(c, row.tiles[k], x, y + double(k / size_t(l.cols)) * l.tile_h(), l, colormap);
  }
}

// The fit's error per width: a line over the widths, each point labelled where there is room, on 0 .. 1.
void draw_error_chart(Canvas& c, const PatternFit& fit, double x, double y, const ReachLayout& l) {
  const TextStyle style{l.f, false, {0, 0, 0}};
  draw_fitted(c, l.chart_title, x, y, HAlign::left);
  const double left = x + c.text_width("0.5", style) + 6, top = y + l.chart_title.height() + l.f * 0.8;
  const double bottom = y + l.chart_h - 3.2 * l.f, pw = std::min(l.content_w, 40 * l.f) - (left - x);
  const double n = double(fit.fits.size());
  const auto y_of = [&](double v) { return bottom - (bottom - top) * v; };
  const auto x_of = [&](size_t i) { return left + pw * (double(i) + 0.5) / n; };
  for (double v : {0.0, 0.5, 1.0}) {
    c.line(left, y_of(v), left + pw, y_of(v), kGridColour, 0.5);
    c.text(left - 4, y_of(v), format_number(v, 1), style, HAlign::right, VAlign::middle);
  }
  const bool values = pw / n > c.text_width("0.000", style) + 3;
  for (size_t i = 0; i < fit.fits.size(); ++i) {
    const WidthFit& a = fit.fits[i];
    if (i + 1 < fit.fits.size()) c.line(x_of(i), y_of(a.error), x_of(i + 1), y_of(fit.fits[i + 1].error), kChart, 1.4);
    c.circle(x_of(i), y_of(a.error), 2.4, kChart);
    if (values) c.text(x_of(i), std::max(top + l.f, y_of(a.error) - 4), format_number(a.error, 3), style, HAlign::center, VAlign::bottom);
    c.text(x_of(i), bottom + 4, std::to_string(a.width), style, HAlign::center, VAlign::top);
  }
  c.stroke_rect(left, top, pw, bottom - top, kFrameColour, 0.5);
  c.text(left + pw / 2, bottom + 4 + l.f * 1.3, "head width d", style, HAlign::center, VAlign::top);
}

}  // namespace

Figure reach_figure(const RunAnalysis& analysis, int layer, const PatternFit* fit, const std::string& pattern_title,
                    Colormap colormap, const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  assert(size_t(layer) < analysis.reach.size() && "export checks");
  const int T = run.n_tokens();
  std::vector<TileRow> rows(1);
  rows[0].heading = "layer " + std::to_string(layer) + ": which keys can each head pick? (width " +
                    std::to_string(run.info.d_head) + ", " + std::to_string(T) + " tokens)";
  for (int h = 0; h < run.n_heads(); ++h) {
    const HeadReach& r = analysis.reach[size_t(layer)][size_t(h)];
    const std::string agree =
        r.ranked_rows > 0 ? "rows agree " + std::to_string(r.agreeing_rows) + "/" + std::to_string(r.ranked_rows) : "";
    rows[0].tiles.push_back({"h" + std::to_string(h) + "\n" + count_text(r.reachable_keys, T) + "\n" + agree,
                             &run.attention[size_t(layer)][size_t(h)], marks(T, r.reachable_keys)});
  }
  const bool chart = fit && !fit->fits.empty();
  if (fit) {
    TileRow& r = rows.emplace_back();
    r.heading = "pattern: " + pattern_title + " \u00b7 the closest map a head of width d can make";
    r.tiles.push_back({"target\n" + std::to_string(T) + " x " + std::to_string(T), &fit->target, {}});
    for (const WidthFit& w : fit->fits)
      r.tiles.push_back({"width " + std::to_string(w.width) + "\nerror " + format_number(w.error, 3) + "\n" +
                             count_text(w.reachable_keys, T),
                         &w.fitted, marks(T, w.reachable_keys)});
  }
  const std::string title = style.title.empty() ? figure_model_name(run) + " \u00b7 the head-width limit" : style.title;
  MeasureCanvas mc(style.font);
  const double natural = std::clamp(7.0 * T, 72.0, 120.0);
  ReachLayout l = lay_out(mc, rows, chart, title, style, natural, 0, T);
  if (style.sized()) {
    // Laid out for the page: the largest map side whose rows fit its height.
    const double content = style.page_width > 0 ? style.page_width - 2 * kMargin : l.content_w;
    for (double side = std::min(natural, content);; side *= 0.92) {
      l = lay_out(mc, rows, chart, title, style, side, content, T);
      if (style.page_height <= 0 || l.height <= style.page_height) break;
      if (side < 3 * l.f) {
        throw InputError("a page of " + format_pt(style.page_width) + " x " + format_pt(style.page_height) +
                         " pt is too small for the head-width maps with " + format_pt(l.f) + " pt text");
      }
    }
  }
  Figure fig;
  fig.title = title;
  fig.font = style.font;
  fig.width = style.page_width > 0 ? style.page_width : l.content_w + 2 * kMargin;
  fig.height = style.page_height > 0 ? style.page_height : l.height;
  const PatternFit* shown = fit;
  fig.draw = [=](Canvas& c) {
    double y = kMargin;
    draw_fitted(c, l.title, kMargin, y, HAlign::left);
    if (!l.title.lines.empty()) y += l.title.height() + l.f * 0.6;
    for (size_t k = 0; k < rows.size(); ++k) {
      draw_row(c, rows[k], l.headings[k], kMargin, y, l, colormap);
      y += l.row_h(k, rows[k].tiles.size());
    }
    if (chart) {
      draw_error_chart(c, *shown, kMargin, y, l);
      y += l.chart_h;
    }
    for (const FittedText& t : l.legend) {
      draw_fitted(c, t, kMargin, y, HAlign::left);
      y += t.height();
    }
  };
  return fig;
}

}  // namespace hs
