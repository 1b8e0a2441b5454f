#pragma once
// The one rule every figure's text follows to fit its page (figures laid out for a paper column):
// a title, an axis title or a colour bar's title given `room` points keeps its size when it fits;
// else it wraps (up to `max_lines` lines), then gets smaller down to kMinTextSize (6 pt), and at
// the floor the last line is shortened with "…". Never wider than the room, never under the floor.
// Labels along an axis follow the same floor (figure_parts.h: layout_axis_labels thins them).
#include <string>
#include <vector>

#include "core/render/canvas.h"

namespace hs {

// The smallest text a figure laid out for a page draws, points.
constexpr double kMinTextSize = 6;

struct FittedText {
  std::vector<std::string> lines;  // empty when the text is ""
  TextStyle style;
  double width = 0;  // the widest line, points
  double line_height() const { return style.size * 1.3; }
  double height() const { return double(lines.size()) * line_height(); }
};

// `text` fitted to `room` points by the rule above. floor: the smallest size (min(floor, size) is
// used, so 6 pt text asked for stays 6 pt).
FittedText fit_text(MeasureCanvas& m, const std::string& text, TextStyle style, double room, int max_lines = 2,
                    double floor = kMinTextSize);

// A figure's title (bold, `size` points) fitted to a page `page_width` points wide less its
// margins (0: a free width, one line); empty when not `shown`.
FittedText fit_title(MeasureCanvas& m, const std::string& text, double size, double page_width, double margin,
                     bool shown = true);

// The longest prefix of `text` (whole characters) that with "…" is at most `room` points wide;
// the text itself when it fits.
std::string shorten_text(MeasureCanvas& m, const std::string& text, const TextStyle& style, double room);

// The lines from y down (their tops), each aligned at x. vertical: rotated to read bottom to top,
// the lines stacked left to right from x (their tops), each aligned along y.
void draw_fitted(Canvas& c, const FittedText& t, double x, double y, HAlign align, bool vertical = false);

// Words of `text` in lines no wider than `width` points (a longer word keeps a line of its own).
std::vector<std::string> wrap_text(MeasureCanvas& m, const std::string& text, const TextStyle& style, double width);

// `figure` with `lines` of text under it, each wrapped to the figure's width, in grey at `size`
// points (as the table figures' captions); the figure grows by their height.
struct Figure;
Figure with_caption(Figure figure, const std::vector<std::string>& lines, double size);

}  // namespace hs
