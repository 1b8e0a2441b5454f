#include "app/gui/actions/window_rules.h"

#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {

std::string window_title(const AppState& state) {
  return session_dirty(state) ? "headscope \xE2\x80\xA2 unsaved" : "headscope";
}

void follow_presentation_colours(AppState& state, bool& was_active) {
  const bool entered = state.present.active && !was_active;
  was_active = state.present.active;
  if (!entered || state.scale.colormap != Colormap::viridis) return;
  const bool clean = !session_dirty(state);  // F5 is not work to save
  use_presentation_colormap(state);
  if (clean) mark_session_clean(state);
}

void use_presentation_colormap(AppState& state) {
  if (!state.present.active || state.scale.colormap != Colormap::viridis) return;
  state.scale.colormap = present_colormap(state.theme);
  state.present.colormap_replaced = true;
}

Colormap colormap_to_save(const AppState& state) {
  return state.present.colormap_replaced && state.scale.colormap == present_colormap(state.theme) ? Colormap::viridis
                                                                                                : state.scale.colormap;
}

}  // namespace hs::gui
