// The panel that draws each of the app's tabs: one row per tab. The tabs themselves (names,
// titles, order, exports, lesson unlocks) are core's view registry (core/export/view_registry.h);
// adding a view adds its row here (docs/layout.md).
#include <utility>

#include "app/gui/panels/panels.h"

namespace hs::gui {

void draw_grid(AppState& state, const UiContext& ui);        // panel_grid.cpp
void draw_head(AppState& state, const UiContext& ui);        // panel_head.cpp
void draw_query(AppState& state, const UiContext& ui);       // panel_query.cpp
void draw_difference(AppState& state, const UiContext& ui);  // panel_difference.cpp
void draw_average(AppState& state, const UiContext& ui);     // panel_average.cpp
void draw_width(AppState& state, const UiContext& ui);       // panel_width.cpp
void draw_roles(AppState& state, const UiContext& ui);       // panel_roles.cpp
void draw_ablation(AppState& state, const UiContext& ui);    // panel_ablation.cpp
void draw_contrast(AppState& state, const UiContext& ui);    // panel_contrast.cpp

namespace {

const std::pair<View, DrawView> kPanels[] = {
    {View::heads, draw_grid},           {View::head, draw_head},       {View::query, draw_query},
    {View::difference, draw_difference}, {View::average, draw_average}, {View::width, draw_width},
    {View::roles, draw_roles},          {View::ablation, draw_ablation}, {View::contrast, draw_contrast},
};

}  // namespace

DrawView view_panel(View view) {
  for (const auto& [v, draw] : kPanels)
    if (v == view) return draw;
  return nullptr;
}

}  // namespace hs::gui
