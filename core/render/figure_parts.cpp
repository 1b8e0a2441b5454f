#include "core/render/figure_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/render/colour_scale.h"
#include "core/util/utf8.h"

namespace hs {

std::string display_label(const std::vector<std::string>& tokens, size_t i, MeasureCanvas* m, SpaceMark space) {
  TokenLabelOptions o;
  o.space = space;
  if (m) o.drawable = [m](uint32_t cp) { return m->has_glyph(cp); };
  std::string out = token_label(tokens, i, o);
  if (utf8_length(out) > kMaxLabelCodePoints) out = utf8_prefix(out, kMaxLabelCodePoints - 1) + "\u2026";
  return out;
}

std::string display_label(const std::string& token) { return display_label({token}, 0, nullptr, SpaceMark::dot); }

AxisLabels layout_axis_labels(MeasureCanvas& m, const std::vector<std::string>& names, double cell, bool x_axis,
                              double max_font, double min_font, int every, SpaceMark space, bool tokens, int max_lanes) {
  AxisLabels a;
  const double floor = std::min(min_font, max_font);
  a.style.size = std::clamp(cell * 0.78, floor, max_font);
  if (every < 0) {
    a.text.assign(names.size(), std::string());
    return a;
  }
  // Labels stacked along the axis (y, or rotated x) need 1.2 x their size each; as many as fit,
  // or every `every`-th as asked: smaller down to the floor, then thinned (with a note). With two
  // lanes a label's neighbours in its lane are two steps away.
  const auto fitting_step = [&](int base, int lanes) {
    const int k = std::max(1, int(std::ceil(a.style.size * 1.2 / (cell * base * lanes) - 1e-9)));
    return base * k;
  };
  const int base = std::max(every, 1);
  int step = fitting_step(base, 1);
  if (max_lanes >= 2 && step > base && names.size() > 2) {
    a.lanes = 2;
    step = fitting_step(base, 2);
  }
  if (every > 0 && step > every && names.size() > 1) {
    a.note = "labels: every " + (every == 1 ? std::string("one") : std::to_string(every) + "-th") + " asked for, but at " +
             format_number(a.style.size, 1) + " pt they need " + format_number(a.style.size * 1.2, 1) +
             " pt each and a cell is " + format_number(cell, 1) + " pt: every " + std::to_string(step) + "-th shown";
  }
  double widest = 0, widest_outer = 0;
  a.text.resize(names.size());
  if (a.lanes == 2) a.lane.assign(names.size(), 0);
  for (size_t i = 0; i < names.size(); ++i) {
    if (i % size_t(step)) continue;
    a.text[i] = tokens ? display_label(names, i, &m, space) : names[i];
    const double w = m.width(a.text[i], a.style);
    widest = std::max(widest, w);
    if (a.lanes == 2 && (i / size_t(step)) % 2 == 1) {
      a.lane[i] = 1;
      widest_outer = std::max(widest_outer, w);
    }
  }
  const double lane_gap = 0.4 * a.style.size;
  if (x_axis && widest <= cell * step * a.lanes * 0.9) {  // side by side, unrotated
    a.extent = a.style.size * 1.25 * a.lanes;
    a.lane_offset = a.style.size * 1.25;
  } else {
    a.vertical = x_axis;
    a.lane_offset = a.lanes == 2 ? widest + lane_gap : 0;
    a.extent = a.lanes == 2 ? a.lane_offset + widest_outer : widest;
  }
  return a;
}

void draw_x_labels(Canvas& c, const AxisLabels& labels, double x0, double y_top, double cell) {
  for (size_t i = 0; i < labels.text.size(); ++i) {
    const double x = x0 + (double(i) + 0.5) * cell;
    const double y = y_top + (labels.in_outer_lane(i) ? labels.lane_offset : 0);
    if (labels.vertical) c.text(x, y, labels.text[i], labels.style, HAlign::right, VAlign::middle, true);
    else c.text(x, y, labels.text[i], labels.style, HAlign::center, VAlign::top);
  }
}

void draw_y_labels(Canvas& c, const AxisLabels& labels, double x_right, double y0, double cell) {
  for (size_t i = 0; i < labels.text.size(); ++i) {
    const double x = x_right - (labels.in_outer_lane(i) ? labels.lane_offset : 0);
    c.text(x, y0 + (double(i) + 0.5) * cell, labels.text[i], labels.style, HAlign::right, VAlign::middle);
  }
}

Ticks nice_ticks(double lo, double hi, int max_count) {
  Ticks t;
  if (!(hi > lo) || max_count < 1) {
    t.values = {lo};
    return t;
  }
  // step = the smallest of {1, 2, 2.5, 5, 10} x 10^k that is at least (hi - lo) / max_count
  const double raw = (hi - lo) / max_count;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * mag;
  for (double f : {1.0, 2.0, 2.5, 5.0}) {
    if (f * mag >= raw * (1 - 1e-9)) {
      step = f * mag;
      break;
    }
  }
  const double eps = step * 1e-6;
  for (double v = std::ceil((lo - eps) / step) * step; v <= hi + eps; v += step) {
    t.values.push_back(std::fabs(v) < eps ? 0.0 : v);
  }
  const double f = step / mag;
  t.decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)) + (f == 2.5 ? 1 : 0));
  return t;
}

std::string format_number(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s[0] == '-') {
    if (s.find_first_not_of("0.", 1) == std::string::npos) s = s.substr(1);  // "-0.00" -> "0.00"
    else s = "\u2212" + s.substr(1);                                         // a real minus sign
  }
  return s;
}

namespace {

int bar_tick_count(double height, double tick_size) { return std::clamp(int(height / (32.0 * tick_size / kTickSize)), 2, 8); }

// Tick values and their labels: nice linear values, or the powers of ten in [lo, hi] ("0.001").
struct BarTicks {
  std::vector<double> values;
  std::vector<std::string> labels;
};

BarTicks bar_ticks(const ColourBar& bar, double height) {
  BarTicks t;
  if (bar.log && bar.lo > 0 && bar.hi > bar.lo) {
    for (int e = int(std::ceil(std::log10(bar.lo) - 1e-9)); e <= int(std::floor(std::log10(bar.hi) + 1e-9)); ++e) {
      t.values.push_back(std::pow(10.0, e));
      t.labels.push_back(format_number(t.values.back(), std::max(0, -e)));
    }
    return t;
  }
  Ticks ticks = nice_ticks(bar.lo, bar.hi, bar_tick_count(height, bar.tick_size));
  // A diverging bar (lo = -hi) labels at least -s, 0 and s: s the largest of {1, 2, 2.5, 5} x 10^k
  // within the range (at least 0.4 of hi, so the three labels stay apart on a short bar).
  if (ticks.values.size() < 3 && bar.lo < 0 && bar.hi > 0 && std::fabs(bar.lo + bar.hi) <= 1e-6 * bar.hi) {
    const double mag = std::pow(10.0, std::floor(std::log10(bar.hi)));
    double step = mag;
    for (double f : {5.0, 2.5, 2.0, 1.0})
      if (f * mag <= bar.hi * (1 + 1e-9)) {
        step = f * mag;
        break;
      }
    ticks.values = {-step, 0.0, step};
    ticks.decimals = std::max(0, -int(std::floor(std::log10(step) + 1e-9)) + (step / mag == 2.5 ? 1 : 0));
  }
  t.values = ticks.values;
  for (double v : ticks.values) t.labels.push_back(format_number(v, ticks.decimals));
  return t;
}

// Where value v sits on the bar, 0 at the bottom and 1 at the top.
double bar_position(const ColourBar& bar, double v) {
  if (bar.log && bar.lo > 0 && bar.hi > bar.lo) return std::log(v / bar.lo) / std::log(bar.hi / bar.lo);
  return (v - bar.lo) / (bar.hi - bar.lo);
}

}  // namespace

ColourBar colour_bar_for(const ScaleRange& range, Colormap colormap, const std::string& what) {
  ColourBar bar;
  bar.colormap = colormap;
  bar.lo = range.lo;
  bar.hi = range.hi;
  bar.title = what;
  switch (range.mode) {
    case ScaleMode::linear: break;
    case ScaleMode::log: bar.log = true, bar.title += " (log)"; break;
    case ScaleMode::row_normalised: bar.title = "share of the row's largest " + what; break;
  }
  if (range.skip_first_column) bar.title += ", key 0 left out";
  return bar;
}

namespace {

// The bar's title along its height: wrapped onto two lines, smaller down to 6 pt, then shortened.
FittedText bar_title(MeasureCanvas& m, const ColourBar& bar, double height) {
  return fit_text(m, bar.title, TextStyle{bar.title_size, false, {0, 0, 0}}, height, 2,
                  std::min(kMinTextSize, bar.title_size));
}

}  // namespace

double colour_bar_width(MeasureCanvas& m, const ColourBar& bar, double height) {
  const BarTicks ticks = bar_ticks(bar, height);
  const TextStyle tick_style{bar.tick_size, false, {0, 0, 0}};
  double widest = 0;
  for (const std::string& label : ticks.labels) widest = std::max(widest, m.width(label, tick_style));
  return bar.width + 3 + 3 + widest + (bar.title.empty() ? 0 : 6 + bar_title(m, bar, height).height());
}

void draw_colour_bar(Canvas& c, const ColourBar& bar, double x, double y, double height) {
  // 256 stripes, entry 255 (the top) first: stripe k covers the values mapped to entry 255 - k.
  const auto& table = colormap_table(bar.colormap);
  std::vector<Rgb8> stripes(256);
  for (size_t k = 0; k < 256; ++k) stripes[k] = table[255 - k];
  c.cells(x, y, bar.width, height, 256, 1, stripes);
  c.stroke_rect(x, y, bar.width, height, kFrameColour, 0.6);

  const BarTicks ticks = bar_ticks(bar, height);
  const TextStyle tick_style{bar.tick_size, false, {0, 0, 0}};
  double widest = 0;
  for (size_t i = 0; i < ticks.values.size(); ++i) {
    const double ty = y + height * (1.0 - bar_position(bar, ticks.values[i]));
    c.line(x + bar.width, ty, x + bar.width + 3, ty, kFrameColour, 0.6);
    c.text(x + bar.width + 6, ty, ticks.labels[i], tick_style, HAlign::left, VAlign::middle);
    widest = std::max(widest, c.text_width(ticks.labels[i], tick_style));
  }
  if (!bar.title.empty()) {
    MeasureCanvas m(c.family());
    draw_fitted(c, bar_title(m, bar, height), x + bar.width + 6 + widest + 6, y + height / 2, HAlign::center, true);
  }
}

double masked_legend_width(MeasureCanvas& m, double text_size) {
  return text_size * 1.6 + m.width("masked", TextStyle{text_size, false, {0, 0, 0}});
}

void draw_masked_legend(Canvas& c, Colormap colormap, double x, double y, double text_size) {
  const double side = text_size;
  c.fill_rect(x, y, side, side, masked_colour(colormap));
  c.stroke_rect(x, y, side, side, kFrameColour, 0.6);
  c.text(x + side * 1.6, y + side / 2, "masked", TextStyle{text_size, false, {0, 0, 0}}, HAlign::left, VAlign::middle);
}

Rgb8 ink_on(Rgb8 c) {
  const double y = (0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b) / 255.0;
  return y > 0.5 ? Rgb8{0, 0, 0} : Rgb8{255, 255, 255};
}

}  // namespace hs
