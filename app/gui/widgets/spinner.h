#pragma once
// A small spinning arc at the cursor, animated from ImGui::GetTime() (no state): "loading".

namespace hs::gui {

void draw_spinner(float radius);

}  // namespace hs::gui
