#pragma once
// The Head width view's parts beside its sweep (panel_width.cpp), in panel_width_reach.cpp:
//   keys     every head's map with the keys no query can make its top key dimmed and the others
//            marked above their column, titled "h0 · 2 of 11 keys · rows agree 11 of 11"
//            (core/analysis/head_reach.h); a lesson's compare entries as blocks of their own; and,
//            exploring, the table of each head's numbers
//   pattern  a target pattern and the closest map a head of each width makes to it, with the
//            error per width (core/analysis/pattern_fit.h), fitted off the UI thread
#include "app/gui/state/app_state.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

void draw_width_keys(AppState& state, const UiContext& ui, ImVec2 area);
void draw_width_pattern(AppState& state, const UiContext& ui, ImVec2 area);

}  // namespace hs::gui
