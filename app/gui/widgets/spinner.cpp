#include "app/gui/widgets/spinner.h"

#include <imgui.h>

#include <algorithm>

namespace hs::gui {

void draw_spinner(float radius) {
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float h = ImGui::GetTextLineHeight();
  ImGui::Dummy(ImVec2(radius * 2 + 2, h));
  const ImVec2 c(p.x + radius + 1, p.y + h * 0.5f);
  const float t = float(ImGui::GetTime()) * 6.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PathArcTo(c, radius, t, t + 4.2f, 16);
  dl->PathStroke(ImGui::GetColorU32(ImGuiCol_Text), 0, std::max(2.0f, radius * 0.3f));
}

}  // namespace hs::gui
