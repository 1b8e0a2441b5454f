#include "core/render/figure_text.h"

#include <algorithm>

#include "core/render/figure.h"
#include "core/util/utf8.h"

namespace hs {

std::vector<std::string> wrap_text(MeasureCanvas& m, const std::string& text, const TextStyle& style, double width) {
  std::vector<std::string> lines;
  std::string line, word;
  const auto flush_word = [&] {
    if (word.empty()) return;
    const std::string joined = line.empty() ? word : line + " " + word;
    if (!line.empty() && m.width(joined, style) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = joined;
    }
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ') flush_word();
    else word += ch;
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string shorten_text(MeasureCanvas& m, const std::string& text, const TextStyle& style, double room) {
  if (m.width(text, style) <= room) return text;
  // The longest prefix that fits with the ellipsis (binary search over code points).
  size_t lo = 0, hi = utf8_length(text);
  while (lo < hi) {
    const size_t mid = (lo + hi + 1) / 2;
    if (m.width(utf8_prefix(text, mid) + "\u2026", style) <= room) lo = mid;
    else hi = mid - 1;
  }
  std::string cut = utf8_prefix(text, lo);
  while (!cut.empty() && cut.back() == ' ') cut.pop_back();
  return cut + "\u2026";
}

namespace {

// Lines of `text` at `style` within `room`, at most max_lines; false when a line is still wider.
bool wrap_into(MeasureCanvas& m, const std::string& text, const TextStyle& style, double room, int max_lines,
               std::vector<std::string>& lines) {
  lines = max_lines > 1 ? wrap_text(m, text, style, room) : std::vector<std::string>{text};
  if (int(lines.size()) > max_lines) return false;
  for (const std::string& line : lines)
    if (m.width(line, style) > room) return false;
  return true;
}

}  // namespace

FittedText fit_text(MeasureCanvas& m, const std::string& text, TextStyle style, double room, int max_lines,
                    double floor) {
  FittedText t;
  t.style = style;
  if (text.empty()) return t;
  max_lines = std::max(1, max_lines);
  room = std::max(room, 1.0);
  const double smallest = std::min(floor, style.size);
  // One line at the size; else wrapped at the size; else each size down to the floor, in 0.25 pt
  // steps (one line first, then wrapped).
  bool fitted = false;
  for (double size = style.size;; size = std::max(size - 0.25, smallest)) {
    t.style.size = size;
    fitted = wrap_into(m, text, t.style, room, 1, t.lines) || wrap_into(m, text, t.style, room, max_lines, t.lines);
    if (fitted || size <= smallest) break;
  }
  if (!fitted) {
    // At the floor: the lines that fit, the last one shortened.
    t.style.size = smallest;
    std::vector<std::string> all = wrap_text(m, text, t.style, room);
    t.lines.clear();
    std::string rest;
    for (size_t k = 0; k < all.size(); ++k) {
      if (int(t.lines.size()) + 1 < max_lines) t.lines.push_back(shorten_text(m, all[k], t.style, room));
      else rest += (rest.empty() ? "" : " ") + all[k];
    }
    if (!rest.empty()) t.lines.push_back(shorten_text(m, rest, t.style, room));
  }
  for (const std::string& line : t.lines) t.width = std::max(t.width, m.width(line, t.style));
  return t;
}

FittedText fit_title(MeasureCanvas& m, const std::string& text, double size, double page_width, double margin, bool shown) {
  if (!shown) return {};
  return fit_text(m, text, TextStyle{size, true, {0, 0, 0}}, page_width > 0 ? page_width - 2 * margin : 1e9);
}

void draw_fitted(Canvas& c, const FittedText& t, double x, double y, HAlign align, bool vertical) {
  for (size_t k = 0; k < t.lines.size(); ++k) {
    const double at = double(k) * t.line_height();
    if (vertical) c.text(x + at, y, t.lines[k], t.style, align, VAlign::top, true);
    else c.text(x, y + at, t.lines[k], t.style, align, VAlign::top);
  }
}

Figure with_caption(Figure figure, const std::vector<std::string>& lines, double size) {
  constexpr double kCaptionMargin = 8;
  const TextStyle style{size, false, {64, 64, 64}};
  MeasureCanvas mc(figure.font);
  std::vector<std::string> wrapped;
  for (const std::string& line : lines)
    for (std::string& w : wrap_text(mc, line, style, std::max(figure.width - 2 * kCaptionMargin, 60.0)))
      wrapped.push_back(shorten_text(mc, w, style, std::max(figure.width - 2 * kCaptionMargin, 60.0)));  // a word wider than the figure
  if (wrapped.empty()) return figure;
  const double top = figure.height, line_h = size * 1.35;
  figure.height += line_h * double(wrapped.size()) + kCaptionMargin;
  figure.draw = [draw = std::move(figure.draw), wrapped, style, top, line_h](Canvas& c) {
    draw(c);
    for (size_t k = 0; k < wrapped.size(); ++k) c.text(kCaptionMargin, top + line_h * double(k), wrapped[k], style, HAlign::left, VAlign::top);
  };
  return figure;
}

}  // namespace hs
