#include "app/gui/widgets/order_control.h"

#include <imgui.h>

#include "app/gui/widgets/draw_util.h"

namespace hs::gui {

bool draw_order_control(const char* id, bool& clustered) {
  ImGui::PushID(id);
  int v = clustered ? 1 : 0;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("order:");
  ImGui::SameLine();
  bool changed = ImGui::RadioButton("model", &v, 0);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Heads in the model's order, 0 to H-1.");
  ImGui::SameLine();
  changed |= ImGui::RadioButton("clustered", &v, 1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Heads in the leaf order of an average-linkage clustering of the layer's head distance, so similar "
                      "heads sit side by side. Labels keep each head's real index.");
  ImGui::PopID();
  clustered = v == 1;
  return changed;
}

float order_control_width() {
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  return text_width("order:") + gap + checkbox_width("model") + gap + checkbox_width("clustered");
}

}  // namespace hs::gui
