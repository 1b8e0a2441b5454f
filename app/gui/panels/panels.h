#pragma once
// Every panel: one file, one draw_<panel>() and one state struct (in AppState) each.
// Panels read UiContext (Derived, textures) and write only AppState: what they ask the app to do
// (export, sessions, jobs) they push onto AppState::commands (app/gui/state/commands.h), which the
// frame loop carries out after the frame.
#include "app/gui/state/app_state.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

void draw_sentence(AppState& state, const UiContext& ui);    // panel_sentence.cpp
// The sentence window's height at `width`: presenting, the token chips wrap onto lines.
float sentence_bar_height(const AppState& state, const UiContext& ui, float width);  // panel_sentence.cpp
void draw_model(AppState& state, const UiContext& ui);       // panel_model.cpp
// The model part of the sidebar: source switch, boxes, Open, recent models, model info,
// layer selector, continue control. Draws nothing for the synthetic shape controls.
void draw_open_model(AppState& state, const UiContext& ui);  // panel_open_model.cpp
// The panel that draws a tab of core/export/view_registry.h (view_panels.cpp); null for a part
// of a tab (its tab draws it).
using DrawView = void (*)(AppState& state, const UiContext& ui);
DrawView view_panel(View view);
void draw_status(AppState& state, const UiContext& ui);      // panel_status.cpp
void draw_export(AppState& state, const UiContext& ui);      // panel_export.cpp (buttons)
void draw_export_dialog(AppState& state, const UiContext& ui);  // panel_export.cpp (File > Export...)
void open_export_dialog(AppState& state, const UiContext& ui);  // panel_export.cpp (Ctrl+E, the menu)
void draw_scale_controls(AppState& state, const AttentionRun& run);  // panel_head.cpp (shared toolbar)
void draw_menu(AppState& state, const UiContext& ui);        // panel_menu.cpp (menu bar)
// The one layer control, in the left column (panel_layer.cpp); the left column is shown except
// presenting a lesson, and only then do the views' toolbars draw a layer box of their own.
void draw_layer_control(AppState& state, int layers);
bool sidebar_shown(const AppState& state);
bool toolbar_layer_control(const AppState& state, int layers);
void draw_session_dialog(AppState& state);                   // panel_menu.cpp (save / open box)
void draw_unsaved(AppState& state);                          // panel_unsaved.cpp ("Unsaved changes" popup)
void draw_lesson(AppState& state, const UiContext& ui);      // panel_lesson.cpp (step caption)
float lesson_panel_height(const AppState& state, const UiContext& ui, float width);  // panel_lesson.cpp
float lesson_column_min_width(const AppState& state, const UiContext& ui);  // a caption column that holds the step buttons side by side
void draw_lesson_controls(AppState& state, const UiContext& ui);  // panel_lesson_controls.cpp (presenting)
bool lesson_controls_unlocked(const AppState& state);             // panel_lesson_controls.cpp
void draw_lesson_problems(AppState& state);                       // panel_lesson_problems.cpp (a loaded lesson's check)
bool lesson_problems_shown(const AppState& state);                // the loaded lesson was checked and has problems
std::string lesson_problems_summary(const AppState& state);       // the status line's one line about them

// The whole window: sentence on top, model controls on the left, views in tabs, status below.
void draw_app(AppState& state, const UiContext& ui);  // ui_root.cpp

// Keyboard shortcuts: Ctrl+L focuses the sentence, Ctrl+E exports, Ctrl+Q quits (asking first when unsaved),
// arrows move the selected head / query.
void handle_shortcuts(AppState& state, const UiContext& ui);  // ui_root.cpp

}  // namespace hs::gui
