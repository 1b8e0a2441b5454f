#include "app/gui/panels.h"

namespace hs::gui {

void draw_difference(AppState& state, const UiContext& ui) {
  (void)state;
  (void)ui;
  ImGui::TextDisabled("coming soon");
}

}  // namespace hs::gui
