#pragma once
// A heatmap with token labels on both axes, drawn from a texture made by HeatmapImages, plus
// the colour bar that goes with it. Works out which cell the mouse is over.
#include <string>
#include <vector>

#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// No text on screen is smaller than this (px): crowded labels thin out (every n-th) instead.
constexpr float kSmallestLabel = 11.0f;

struct HeatmapSpec {
  std::string key;       // unique per map on screen; also the ImGui id
  MapVersion version;    // changes when the map's data changes
  const Map* map = nullptr;  // [rows, cols], row = query, col = key
  MapMask mask;              // the cells no query could see (they travel with the map: core/render/shown_map.h)
  int tokens = 0;            // the full map's side the mask refers to
  ScaleRange range;
  // The colour bar that explains the colours is on a 0..1 share of the map's own largest value
  // (each head on its own range) rather than on `range` itself.
  bool relative_bar = false;
  Colormap colormap = Colormap::viridis;
  const std::vector<std::string>* row_labels = nullptr;  // query tokens (left)
  const std::vector<std::string>* col_labels = nullptr;  // key tokens (bottom)
  int layer = -1, head = -1;                             // for the report
  int highlight_row = -1, highlight_col = -1;
  // Presenting a lesson step, the tokens its caption talks about (map indices). When the labels
  // must thin out, only these are labelled, on both axes, instead of every k-th token (whose
  // pieces, "l", "ved", say nothing from the back of a hall); null or empty: every k-th.
  const std::vector<int>* named = nullptr;
  int first_generated = -1;     // labels from this index on are generated tokens (own colour); -1: none
  bool selected = false;        // draw an accent frame
  int boundary = -1;            // a sentence pair: B starts at this token; a line before it on both axes (-1: none)
  float label_font_max = 0.0f;  // 0: the current font size
  float label_font_min = 0.0f;  // presenting: labels never smaller (they thin out); 0: down to kSmallestLabel
  // Presentation's shared labels (present_grid.h): cells of exactly `fixed_cell`, labels of
  // `fixed_label` px (every `fixed_step`-th one, at most `fixed_chars` characters) in margins of
  // `fixed_left` x `fixed_bottom`, so that maps sharing one set of labels line up. 0: automatic.
  float fixed_cell = 0.0f, fixed_label = 0.0f, fixed_left = 0.0f, fixed_bottom = 0.0f;
  int fixed_step = 1, fixed_chars = 8;
  bool fixed_rotate = false;
};

struct HeatmapHit {
  bool hovered = false;
  bool clicked = false;          // pressed this frame
  bool released_click = false;   // released this frame where it was pressed, without dragging (a drag pans a zoomed map)
  bool double_clicked = false;
  // The cell under the mouse, -1 outside the cells. Where one pixel shows several cells (their
  // largest value), the largest cell of the block under the mouse, and the block's size.
  int row = -1, col = -1;
  int block_rows = 1, block_cols = 1;
  ImVec2 cells_min, cells_max;  // where the cells were drawn (screen pixels)
  ImVec2 drag;                  // mouse movement this frame while dragging on the map (pixels)
};

// Where things go inside a box of `size`: label margins, square cells, label font size.
struct HeatmapLayout {
  float cell = 0;          // side of one cell in pixels
  float label_size = 0;    // font size for labels (0: no labels)
  float left = 0;          // width of the row-label margin
  float bottom = 0;        // height of the column-label margin
  bool rotate_cols = false;
  int label_chars = 12;    // labels abbreviated to this many code points
  int label_step = 1;      // crowded: every label_step-th label (the selected and hovered ones always, in place of a neighbour)
};

// What every heatmap states: its key, the data and its version, the scale and colours, and which
// layer and head it shows (-1: none). Callers add labels, highlights and selection.
HeatmapSpec heatmap_spec(std::string key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                         Colormap colormap, int layer = -1, int head = -1);
// Cells with no mask (a table of heads, of layers x heads), `version` its source.
HeatmapSpec heatmap_spec(std::string key, uint64_t version, const Map& map, const ScaleRange& range, Colormap colormap,
                         int layer = -1, int head = -1);
// The map spec draws, with its mask (for the minimap and the texture cache).
ShownMap shown_map(const HeatmapSpec& spec);
// A version for the maps of one result: `source` (Derived::generation), layer and head.
MapVersion map_version(uint64_t source, int layer = -1, int head = -1, int other = -1);

HeatmapLayout layout_heatmap(const HeatmapSpec& spec, ImVec2 size, ImFont* font, float font_size);

// "(the largest of the 3 x 3 cells under the pointer)" when one pixel shows several cells, else "".
std::string block_note(const HeatmapHit& hit);

// Draws the heatmap in a box of `size` at the cursor and advances the cursor past it.
HeatmapHit draw_heatmap(const UiContext& ui, const HeatmapSpec& spec, ImVec2 size);

// A vertical colour bar with ticks, `size` including tick labels; caption from the range. Both
// bars report themselves (FrameReport::bars), so a test can see that every map's colours are explained.
void draw_colour_bar(const UiContext& ui, const ScaleRange& range, Colormap colormap, ImVec2 size);

// A horizontal colour bar, low values on the left, `size` including the tick labels under it
// (size.y: colour_bar_across_height()).
void draw_colour_bar_across(const UiContext& ui, const ScaleRange& range, Colormap colormap, ImVec2 size);
float colour_bar_across_height();

// Width a colour bar needs for its tick labels at the current font.
float colour_bar_width();

}  // namespace hs::gui
