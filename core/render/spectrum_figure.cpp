#include "core/render/spectrum_figure.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "core/render/canvas.h"
#include "core/render/category_palette.h"
#include "core/render/figure_parts.h"
#include "core/render/heatmap_figure.h"
#include "core/render/sweep_figure.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// Points: a page narrower than this stacks the width view's two charts.
constexpr double kWidthSideBySide = 360;

std::string power_of_ten(int k) { return k == 0 ? "1" : k == 1 ? "10" : "1e" + std::to_string(k); }

}  // namespace

bool has_spectrum(const RunAnalysis& analysis, int layer) {
  if (layer < 0 || size_t(layer) >= analysis.spectrum.size() || analysis.spectrum[size_t(layer)].empty()) return false;
  for (const HeadSpectrum& s : analysis.spectrum[size_t(layer)])
    if (s.singular_values.size() == 0) return false;
  return true;
}

Figure spectrum_figure(const RunAnalysis& analysis, int layer, Colormap /*lines are categorical*/, const FigureStyle& style) {
  const AttentionRun& run = analysis.run;
  assert(has_spectrum(analysis, layer) && "checked by export");
  const std::vector<HeadSpectrum>& heads = analysis.spectrum[size_t(layer)];
  const int H = int(heads.size()), n = int(heads.front().singular_values.size()), d_head = run.info.d_head;
  const bool masked = run.info.causal || run.info.window >= 0;
  // Each head's values down to a floor 1e-7 below its largest (the rest is numerically zero).
  std::vector<std::vector<double>> values;
  double hi = 0, lo = 1e300;
  for (const HeadSpectrum& s : heads) {
    const double floor = std::max(double(s.singular_values(0)), 1e-30) * 1e-7;
    std::vector<double> v;
    for (Eigen::Index i = 0; i < s.singular_values.size(); ++i) v.push_back(std::max(double(s.singular_values(i)), floor));
    hi = std::max(hi, v.front());
    lo = std::min(lo, *std::min_element(v.begin(), v.end()));
    values.push_back(std::move(v));
  }
  const int k_lo = int(std::floor(std::log10(lo))), k_hi = std::max(k_lo + 1, int(std::ceil(std::log10(hi))));

  const bool styled = style.styled();
  const double f = styled ? style.text_size() : kTickSize;
  const double margin = styled ? std::max(2.0, 0.5 * f) : kMargin;
  const double title_size = styled ? 1.15 * f : kTitleSize;
  const double axis_size = styled ? f : kAxisTitleSize;
  const std::string title = style.title.empty() ? figure_model_name(run) + " \u00b7 layer " + std::to_string(layer) +
                                                      " \u00b7 singular values of each head's scores Q K\u1d40 / \u221ad_head"
                                                : style.title;
  MeasureCanvas mc(style.font);
  // The title fitted to the page's width (figure_text.h): wrapped, smaller to 6 pt, shortened.
  const FittedText title_fit = fit_title(mc, title, title_size, style.page_width, margin, style.show_title);
  const TextStyle tick_style{f, false, {0, 0, 0}};
  double tick_w = 0;
  for (int k = k_lo; k <= k_hi + 1; ++k) tick_w = std::max(tick_w, mc.width(power_of_ten(k), tick_style));
  std::vector<std::string> legend;
  double legend_w = 0;
  if (H <= 16) {
    for (int h = 0; h < H; ++h) {
      legend.push_back("head " + std::to_string(h));
      legend_w = std::max(legend_w, 22 + mc.width(legend.back(), tick_style));
    }
  }
  const double title_h = style.show_title ? margin + title_fit.height() + 0.6 * f : margin;
  const double left = margin + axis_size * 1.5 + tick_w + 6;
  // Under the x axis's title: what the flat tails are (the floor the values are drawn at).
  const TextStyle note_style{f, false, {90, 90, 90}};
  const FittedText floor_note =
      fit_text(mc, "flat tails: values under 1e-7 \u00d7 a head's largest, drawn at that floor (numerically 0)", note_style,
               (style.page_width > 0 ? style.page_width : left + 300 + 12 + legend_w + margin) - 2 * margin, 2,
               styled ? std::min(kMinTextSize, f) : 5.5);
  const double below = 5 + f * 1.3 + 4 + axis_size * 1.5 + floor_note.height() + margin;
  // The legend beside the plot in as many columns as its height needs (a page's height holds
  // `legend_rows` entries a column); none when not even one fits.
  int legend_rows = std::max(H, 1);
  if (style.page_height > 0 && !legend.empty()) {
    legend_rows = int((style.page_height - title_h - below - 4) / (f * 1.35));
    if (legend_rows < 1) legend.clear();
  }
  int legend_cols = legend.empty() ? 0 : (H + legend_rows - 1) / legend_rows;
  if (legend_cols > 1) {  // columns of "h0", "h1", ...: the short names leave the plot its room
    legend_w = 0;
    for (int h = 0; h < H; ++h) {
      legend[size_t(h)] = "h" + std::to_string(h);
      legend_w = std::max(legend_w, 22 + mc.width(legend[size_t(h)], tick_style));
    }
  }
  const double right = (legend.empty() ? 0 : 12 + legend_cols * (legend_w + 0.6 * f)) + margin;
  double plot_w = 300, plot_h = 220;
  if (style.page_width > 0) plot_w = style.page_width - left - right;
  if (style.page_height > 0) plot_h = style.page_height - title_h - below;
  if (style.page_width > 0 && style.page_height <= 0) plot_h = plot_w * 0.73;
  if (style.page_height > 0 && style.page_width <= 0) plot_w = plot_h / 0.73;
  if (!(plot_w > 4 * f && plot_h > 3 * f)) {
    throw InputError("a page of " + std::to_string(int(std::lround(style.page_width))) + " x " +
                     std::to_string(int(std::lround(style.page_height))) +
                     " pt is too small for the singular-value chart (give a larger --size or a smaller --font-size)");
  }
  // Powers of ten every k_step decades: at most 6, and 1.6 x the text size apart.
  const int max_ticks = std::clamp(int(plot_h / (1.6 * f)), 1, 6);
  const int k_step = std::max(1, (k_hi - k_lo + max_ticks - 1) / max_ticks);
  const int k_top = k_lo + k_step * ((k_hi - k_lo + k_step - 1) / k_step);  // the axis ends on a labelled tick
  // The y axis's title along the plot's height; a short plot: "σ (log)" rather than a cut title.
  const auto fit_y_title = [&](const std::string& text) {
    return fit_text(mc, text, TextStyle{axis_size, false, {0, 0, 0}}, plot_h, 1, styled ? std::min(kMinTextSize, f) : 5.5);
  };
  FittedText y_title = fit_y_title("singular value (log)");
  if (y_title.lines.front().find("\u2026") != std::string::npos) y_title = fit_y_title("\u03c3 (log)");
  Figure fig;
  fig.title = title;
  fig.font = style.font;
  const double title_w = style.show_title ? title_fit.width + 2 * margin : 0;
  fig.width = style.page_width > 0 ? style.page_width : std::max(left + plot_w + right, title_w);
  fig.height = style.page_height > 0 ? style.page_height : title_h + plot_h + below;
  const bool show_title = style.show_title;
  const double fig_w = fig.width;
  fig.draw = [=](Canvas& c) {
    if (show_title) draw_fitted(c, title_fit, fig_w / 2, margin, HAlign::center);
    const double top = title_h, bottom = top + plot_h;
    auto x_of = [&](double i) { return left + plot_w * (i + 0.5) / n; };
    auto y_of = [&](double v) {
      return bottom - plot_h * (std::log10(v) - k_lo) / double(k_top - k_lo);
    };
    for (int k = k_lo; k <= k_top; k += k_step) {
      c.line(left, y_of(std::pow(10.0, k)), left + plot_w, y_of(std::pow(10.0, k)), kGridColour, 0.5);
      c.text(left - 5, y_of(std::pow(10.0, k)), power_of_ten(k), tick_style, HAlign::right, VAlign::middle);
    }
    // As many index ticks as fit side by side (the widest label and a gap each), at most 8.
    const double index_w = c.text_width(std::to_string(n), tick_style) + f;
    const Ticks xt = nice_ticks(1, n, std::clamp(int(plot_w / index_w), 1, 8));
    for (double v : xt.values) {
      c.line(x_of(v - 1), bottom, x_of(v - 1), bottom + 3, kFrameColour, 0.6);
      c.text(x_of(v - 1), bottom + 5, format_number(v, 0), tick_style, HAlign::center, VAlign::top);
    }
    if (d_head < n) {
      const double x = (x_of(d_head - 1) + x_of(d_head)) / 2;
      c.line(x, top, x, bottom, {120, 120, 120}, 1.0, true);
      c.text(x + 3, top + 3, "d_head = " + std::to_string(d_head), tick_style, HAlign::left, VAlign::top);
    }
    for (int h = 0; h < H; ++h) {
      // One categorical colour a head (category_palette.h); past eight, dashed, then with markers.
      const Rgb8 colour = category_colour(h);
      const bool dashed = category_line(h) != CategoryLine::solid, dots = category_line(h) == CategoryLine::dotted;
      const std::vector<double>& v = values[size_t(h)];
      for (size_t i = 0; i + 1 < v.size(); ++i)
        c.line(x_of(double(i)), y_of(v[i]), x_of(double(i + 1)), y_of(v[i + 1]), colour, 1.3, dashed);
      if (dots)
        for (size_t i = 0; i < v.size(); ++i) c.circle(x_of(double(i)), y_of(v[i]), 1.6, colour);
      if (!legend.empty()) {
        const double ly = top + 4 + (h % legend_rows) * f * 1.35, lx = left + plot_w + 12 + (h / legend_rows) * (legend_w + 0.6 * f);
        c.line(lx, ly + f * 0.5, lx + 16, ly + f * 0.5, colour, 2.0, dashed);
        if (dots) c.circle(lx + 8, ly + f * 0.5, 1.6, colour);
        c.text(lx + 22, ly + f * 0.5, legend[size_t(h)], tick_style, HAlign::left, VAlign::middle);
      }
    }
    c.stroke_rect(left, top, plot_w, plot_h, kFrameColour, 0.6);
    const TextStyle axis_style{axis_size, false, {0, 0, 0}};
    MeasureCanvas m(c.family());
    const FittedText x_title = fit_text(m, masked ? "index (Q K\u1d40 before the mask)" : "singular value index", axis_style,
                                        fig_w - 2 * margin, 1, styled ? std::min(kMinTextSize, f) : 5.5);
    const auto centred = [&](double width) { return std::clamp(left + plot_w / 2, margin + width / 2, fig_w - margin - width / 2); };
    draw_fitted(c, x_title, centred(x_title.width), bottom + 5 + f * 1.3 + 4, HAlign::center);
    draw_fitted(c, floor_note, centred(floor_note.width), bottom + 5 + f * 1.3 + 4 + axis_size * 1.5, HAlign::center);
    draw_fitted(c, y_title, margin + axis_size * 0.75 - y_title.height() / 2, top + plot_h / 2, HAlign::center, true);
  };
  return fig;
}

Figure width_figure(const RunAnalysis& analysis, const Sweep* sweep, int layer, Colormap colormap, const FigureStyle& style) {
  const bool spectrum = has_spectrum(analysis, layer);
  assert((sweep || spectrum) && "checked by export");
  if (!sweep) return spectrum_figure(analysis, layer, colormap, style);
  if (!spectrum) return sweep_figure(analysis, *sweep, colormap, style);
  // Beside the sweep, whose title names the model, the chart names its layer alone.
  FigureStyle first = style, second = style;
  second.title = "layer " + std::to_string(layer) + " \u00b7 singular values of each head's Q K\u1d40 / \u221ad_head";
  // A page narrower than kWidthSideBySide: the chart under the sweep; one too small for both: the
  // sweep alone, with a note.
  const bool stacked = style.page_width > 0 && style.page_width < kWidthSideBySide;
  if (stacked) {
    // One text size for both: the floor the sweep needs on a column's page.
    first.font_size = second.font_size = std::min(style.text_size(), kMinTextSize);
    if (style.page_height > 0) first.page_height = style.page_height * 0.58, second.page_height = style.page_height * 0.42;
  } else if (style.page_width > 0) {
    first.page_width = style.page_width * 0.6, second.page_width = style.page_width * 0.4;
  }
  try {
    return figures_in_line({sweep_figure(analysis, *sweep, colormap, first), spectrum_figure(analysis, layer, colormap, second)},
                           style.sized() ? 0 : 12, stacked);
  } catch (const InputError&) {
    if (!style.sized()) throw;
  }
  Figure fig = sweep_figure(analysis, *sweep, colormap, style);
  fig.notes.push_back("the page is too small for the sweep and the singular-value chart together: the sweep alone "
                      "(export the chart alone from a pretrained model, or give a larger --size)");
  return fig;
}

}  // namespace hs
