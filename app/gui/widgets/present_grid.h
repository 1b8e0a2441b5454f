#pragma once
// Presentation mode's maps: as large as the window allows, token labels sized with the cells
// (never below a readable size: thinned to every k-th token and shortened rather than shrunk),
// one set of labels shared by a whole grid of maps (grid_layout.h's layout_shared_grid).
#include <string>
#include <vector>

#include "app/gui/widgets/grid_layout.h"
#include "app/gui/widgets/heatmap_widget.h"

namespace hs::gui {

// Labels for cells of side `cell`: font size clamp(0.9 * cell, min_px, max_px); every step-th
// label when the font is taller than a cell; at most `chars` characters (8, or 5 when the
// longest would be wider than 6 font sizes); margins for the row labels (left) and the column
// labels (bottom), which turn upright when wider than their cells.
struct LabelFit {
  float size = 0;
  int step = 1;
  int chars = 8;
  float left = 0, bottom = 0;
  bool rotate = false;
};
LabelFit fit_labels(const std::vector<std::string>& labels, ImFont* font, float cell, float min_px, float max_px);

// n maps of `tokens` x `tokens` cells in `area`: the arrangement with the largest maps once the
// shared labels' margins are paid (margins and map size depend on each other: a few rounds).
struct PresentGrid {
  SharedGrid grid;
  LabelFit labels;
  float cell = 0;  // one cell's side
  // The heads' tile titles: their size and the height kept above each map (set by the grid's
  // user; 0: title_h as given to layout_present_grid).
  float title_px = 0, title_h = 0;
};
// Without `col_labels` the column labels are left to a grid below (a lesson's stacked compare
// blocks share one set), so no bottom margin is kept; without `row_labels` the row labels are
// left to a grid on the left (compare blocks side by side), so no left margin is kept.
PresentGrid layout_present_grid(int n, int group, int tokens, const std::vector<std::string>& labels, ImFont* font,
                                ImVec2 area, float title_h, float gap, float min_px, float max_px, bool col_labels = true,
                                bool row_labels = true);

// The spec's fixed layout for a map at (row, col) of `g` holding map index i of n: row labels
// on the first column, column labels on the lowest map of each column.
void share_labels(HeatmapSpec& spec, const PresentGrid& g, int i, int n);

// The presentation label sizes for the current font: at least 20 px (0.72 of the body font when
// that is more), at most the body font.
float present_label_min();
float present_label_max();

}  // namespace hs::gui
