#pragma once
// Pieces the figures share: token labels along an axis (abbreviated, thinned or rotated when
// crowded), tick values, the colour bar, and the sizes every figure uses (points).
#include <string>
#include <vector>

#include "core/render/canvas.h"
#include "core/render/colormap.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_text.h"
#include "core/text/token_label.h"

namespace hs {

constexpr double kMargin = 14;
constexpr double kTitleSize = 12;
constexpr double kPanelTitleSize = 10;
constexpr double kAxisTitleSize = 10;
constexpr double kTickSize = 8.5;
constexpr double kBarWidth = 12;
constexpr Rgb8 kFrameColour = {64, 64, 64};
constexpr Rgb8 kGridColour = {220, 220, 220};

// tokens[i] as shown on an axis, by the screen's rule (core/text/token_label.h: a space a thin dot
// or none, byte pieces as the character they spell, a character the figure's fonts lack named
// "U+1F600"), more than kMaxLabelCodePoints code points cut with "…". m: the canvas whose fonts
// draw it (null: every character up to U+FFFF counts as drawable).
constexpr size_t kMaxLabelCodePoints = 16;
std::string display_label(const std::vector<std::string>& tokens, size_t i, MeasureCanvas* m, SpaceMark space);
std::string display_label(const std::string& token);  // one token alone, spaces as dots

// Black on light cells, white on dark ones (relative luminance, Rec. 709 weights).
Rgb8 ink_on(Rgb8 c);

struct AxisLabels {
  std::vector<std::string> text;  // per cell, display form; "" where thinned out
  TextStyle style;
  bool vertical = false;  // x axis: rotated when the labels do not fit side by side
  double extent = 0;      // room taken across the axis, points
  std::string note;       // labels asked for (every N) that had to be thinned: says so; else ""
  // Two lanes (the free margin used before thinning): consecutive labels alternate between the
  // lane beside the cells and a second one `lane_offset` points further out, so labels of one
  // lane are two label steps apart. lane[i]: the lane of label i (0 or 1; empty with one lane).
  int lanes = 1;
  double lane_offset = 0;
  std::vector<unsigned char> lane;
  bool in_outer_lane(size_t i) const { return i < lane.size() && lane[i] != 0; }
};

// Labels for cells of size `cell` along an axis. Font size follows the cell (from `min_font` to
// `max_font`); when even the smallest font overlaps, only every k-th label is kept. `every`:
// 0 as many as fit; k > 0 every k-th, thinned to every (multiple of k)-th with a note when even
// the smallest font would overprint; < 0 none. `tokens`: the names are a
// run's tokens, shown by the token rule (display_label); else names of heads or layers, as they are.
// max_lanes 2: where one lane would thin the labels, two lanes (AxisLabels::lanes) keep more of
// them, at the cost of more room across the axis (extent); the caller decides whether it has it.
AxisLabels layout_axis_labels(MeasureCanvas& m, const std::vector<std::string>& names, double cell, bool x_axis,
                              double max_font, double min_font = 5.5, int every = 0, SpaceMark space = SpaceMark::dot,
                              bool tokens = true, int max_lanes = 1);
// x labels hang below y_top under cells starting at x0; y labels end at x_right.
void draw_x_labels(Canvas& c, const AxisLabels& labels, double x0, double y_top, double cell);
void draw_y_labels(Canvas& c, const AxisLabels& labels, double x_right, double y0, double cell);

struct Ticks {
  std::vector<double> values;
  int decimals = 0;
};
// "Nice" values (1, 2, 2.5, 5 times a power of ten) inside [lo, hi], at most max_count.
Ticks nice_ticks(double lo, double hi, int max_count);
std::string format_number(double v, int decimals);

struct ColourBar {
  Colormap colormap = Colormap::viridis;
  double lo = 0, hi = 1;  // value at the bottom and at the top
  bool log = false;       // positions are log(v / lo) / log(hi / lo) (lo > 0); ticks at powers of ten
  std::string title;      // written along the bar
  double tick_size = kTickSize, title_size = kAxisTitleSize, width = kBarWidth;  // points
};

// The colour bar of a ColourScale resolved to `range` (core/render/colour_scale.h): linear, log or
// per-row, titled `what` ("attention weight") plus how the scale reads.
ColourBar colour_bar_for(const ScaleRange& range, Colormap colormap, const std::string& what);
// Width of the bar with its ticks, tick labels and title.
double colour_bar_width(MeasureCanvas& m, const ColourBar& bar, double height);
void draw_colour_bar(Canvas& c, const ColourBar& bar, double x, double y, double height);

// The legend entry for masked cells (causal or window mask: no weight at all, unlike a weight of
// 0): a swatch of the colormap's masked colour and "masked", from (x, y) down; its size.
double masked_legend_width(MeasureCanvas& m, double text_size);
void draw_masked_legend(Canvas& c, Colormap colormap, double x, double y, double text_size);

}  // namespace hs
