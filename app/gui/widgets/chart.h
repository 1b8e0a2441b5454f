#pragma once
// A small line chart drawn with ImDrawList: categorical x (one label per point), one or more
// series, an optional highlighted x and vertical marker, y from 0 (or log) with a few ticks.
#include <imgui.h>

#include <string>
#include <vector>

namespace hs::gui {

struct ChartSeries {
  std::string name;
  std::vector<float> values;  // one per x label; NaN = no point
  ImU32 colour = 0;
  bool dashed = false;   // (heads past the palette's eight, the score rank over d_head)
  bool markers = true;   // a dot at each point
  float width = 2.0f;    // line width, pixels at scale 1; a wide pale band shows a line drawn over it
};

struct ChartSpec {
  std::string title;          // cut with "..." to the chart's width (the whole title in the tooltip)
  std::string tooltip;        // shown when the title is hovered
  std::vector<std::string> x_labels;
  std::vector<ChartSeries> series;
  int highlight_x = -1;       // shaded column (e.g. the current head count)
  float marker_x = -1.0f;     // a dashed vertical line at this x position (index units), < 0: none
  std::string marker_label;
  bool log_y = false;
  float y_min = 0.0f;         // linear charts start here
  std::string x_caption;
};

// Draws in a box of `size` at the cursor and advances past it. Returns the hovered x or -1.
int draw_chart(const ChartSpec& spec, ImVec2 size);

}  // namespace hs::gui
