#pragma once
// Persisted preferences in imgui.ini (a "[headscope][prefs]" section next to ImGui's own):
// sidebar width, colormap, colour scale, theme, export folder and file name, export_font (the font
// family of exported figures, e.g. "export_font=DejaVu Serif", set once like a style file's
// "font"), space_mark (dot or none: how a token's space shows, core/text/token_label.h), the recent
// models and recent sessions lists.
// Sentences and the open model are not persisted: the app opens on its command line or its
// built-in default.
#include "app/gui/state/app_state.h"

namespace hs::gui {

// Registers the ini handler for `state` (which must outlive the ImGui context). Call after
// ImGui::CreateContext and before the first NewFrame.
void register_settings(AppState* state);

// Switches the theme (the main loop rebuilds the style). Presenting on the previous theme's
// default colormap, the new theme's default follows (widgets/theme.h present_colormap).
void set_theme(AppState& state, Theme theme);

}  // namespace hs::gui
