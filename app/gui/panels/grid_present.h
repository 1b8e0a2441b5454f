#pragma once
// Presentation mode's head grid (panel_grid_present.cpp): the maps as large as the area allows,
// one set of token labels shared by the grid, and a lesson's clicked head opened large in place.
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// One head's tile of a layer's heads grid, the same exploring and presenting: its title (the
// head's name, " · kv G" when heads share key/value heads; "hH", or nothing, when the tile is
// narrower), its map below with the token labels the grid shares out, the cell's tooltip, and a
// click: the clicked row's token becomes the query (unless the lesson step keeps the queries) and
// the head opens (in place when the step keeps its tab).
struct HeadTile {
  const RunAnalysis* d = nullptr;
  uint64_t version = 0;
  const char* prefix = "grid";  // names the heatmaps ("grid", "compare1", ...)
  int layer = 0, head = 0;
  int position = 0;             // the tile's place in the grid (head order or clustering order)
  ImVec2 at;                    // the title's top left; the map starts title_h below
  float side = 0;               // the map's side
  float title_size = 0, title_h = 0;
  const PresentGrid* grid = nullptr;
  ScaleRange range;
  bool per_head = false;        // the map on its own range (range gives the mode)
  bool row_labels = true, col_labels = true;
};
void draw_head_tile(AppState& state, const UiContext& ui, const HeadTile& tile);

// Said in place of a heads grid that has no room for its maps (1024 heads in one panel): how many,
// why, and which views show them instead.
void draw_grid_without_room(const RunAnalysis& d, ImVec2 area);

// The cell under the mouse of head (layer, head): its query, key and weight.
void cell_tooltip(const RunAnalysis& a, int layer, int head, const HeatmapHit& hit);

// Presenting a lesson step, the tokens its caption talks about in `block`'s maps (map indices):
// the step's queries, found in the block by their word and its occurrence (another model splits
// the sentence differently: stories260K's second "▁Lily" is the teaching model's second "Lily").
// Empty outside a lesson or not presenting.
std::vector<int> lesson_named_rows(const AppState& state, const RunAnalysis& step, const RunAnalysis& block);

// The layers x heads overview's header above its columns (the first at x, one every `stride`):
// a head's name over its column where it fits, and, when heads share key/value heads, a bar over
// each group and "kv G" beside the group's first name when its column holds both, else (with
// `kv_line`: exploring) on a line of its own above the names; never over another name. Its height
// for columns `stride` apart:
float overview_header_height(int heads, int group, float stride, bool kv_line);
void draw_overview_header(ImDrawList* dl, ImVec2 at, float stride, int heads, int group, bool kv_line);

// Every head of the selected layer of `d` in `area`; `prefix` names the heatmaps ("grid",
// "compare1", ...). With `per_head`, each head on its own range. Without `col_labels` the
// column labels are left to the block below, without `row_labels` the row labels to the block
// on the left; with `like`, the cell size, labels and height of that grid (blocks side by side
// line up with the block whose row labels they share).
void draw_present_layer_grid(AppState& state, const UiContext& ui, const RunAnalysis& d, uint64_t version, ImVec2 area,
                             const ScaleRange& range, const char* prefix, bool per_head, bool col_labels = true,
                             bool row_labels = true, const PresentGrid* like = nullptr);

// The grid draw_present_layer_grid would draw in `area` (for arranging blocks).
PresentGrid present_grid(const RunAnalysis& d, ImVec2 area, bool col_labels = true, bool row_labels = true);
// The side of one map that draw_present_layer_grid would draw in `area` (for arranging blocks).
float present_map_side(const RunAnalysis& d, ImVec2 area, bool col_labels = true);
// The height of what draw_present_layer_grid draws in `area`: less than area.y when the
// width holds the maps (a lesson's stacked blocks give the rest to the others).
float present_grid_height(const RunAnalysis& d, ImVec2 area, bool col_labels = true);
// The column labels' margin under a grid of `d` and the row labels' margin left of it, at the
// smallest label size (for arranging blocks).
float present_label_bottom(const RunAnalysis& d);
float present_label_left(const RunAnalysis& d);

// The layers x heads overview when presenting: every map with one shared set of token labels
// (rows left of head 0, columns under the last layer), layer and head names outside.
void draw_present_all_layers(AppState& state, const UiContext& ui, const Derived& d, ImVec2 area, const ScaleRange& range);

// A lesson step keeps its tab, so clicking a head opens it here instead: that head's map fills
// `area` with its labels; a click on it (or Esc) goes back to every head.
void draw_opened_head(AppState& state, const UiContext& ui, const RunAnalysis& d, uint64_t version, ImVec2 area,
                      const ScaleRange& range);


}  // namespace hs::gui
