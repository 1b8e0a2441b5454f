#pragma once
// What the app's window follows from the state, each frame: its title and presentation mode's
// colours. Plain functions of AppState (the window itself is platform/'s).
#include <string>

#include "app/gui/state/app_state.h"

namespace hs::gui {

// "headscope", or "headscope • unsaved" when the session has something to lose.
std::string window_title(const AppState& state);

// Entering presentation mode (F5, --present) with the default colormap (viridis) switches to the
// theme's presentation colormap (widgets/theme.h present_colormap: cividis on black, colour-blind
// safe). Not work to save: a clean session stays clean. `was_active` is presentation mode as of
// the last call (false before the first); it is updated.
void follow_presentation_colours(AppState& state, bool& was_active);

// Presenting with the default colormap (viridis): the theme's presentation colormap instead,
// remembered as a stand-in so that the user's saved settings keep viridis (settings.h).
void use_presentation_colormap(AppState& state);

// The colormap imgui.ini keeps: the user's own, not presenting's stand-in.
Colormap colormap_to_save(const AppState& state);

}  // namespace hs::gui
