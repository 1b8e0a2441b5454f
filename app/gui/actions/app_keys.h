#pragma once
// The app's keyboard shortcuts outside the text boxes: undo / redo (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y),
// open / save a session (Ctrl+O, Ctrl+S; Ctrl+E, export, is the panels' ui_root.cpp), the interface's size (Ctrl+=, Ctrl+-,
// Ctrl+0), Enter to open the selected head from the Heads grid, and Tab handing the arrow keys to
// ImGui's keyboard navigation (Esc or a click hands them back to the selection).
#include "app/gui/state/app_state.h"

namespace hs::gui {

constexpr float kMinUiScale = 0.6f, kMaxUiScale = 3.0f;

void handle_app_keys(AppState& state, bool have_result);

// The interface's size, stepped by Ctrl+= / Ctrl+- (clamped to kMinUiScale .. kMaxUiScale).
void step_ui_scale(AppState& state, int steps);

// Whether this frame pressed (or repeated) a key that makes things bigger ('=' or the keypad's +)
// or smaller ('-' or the keypad's -): the interface's size here, the lesson's text in the player.
bool zoom_in_pressed();
bool zoom_out_pressed();

}  // namespace hs::gui
