// The one layer control (left column): the layer's name in words above a slider with - and +
// buttons, so the value never hides under the slider's knob. The views' toolbars draw their own
// layer box only where no left column is shown (presenting a lesson): two controls of one
// value would read as two values.
#include <algorithm>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/draw_util.h"

namespace hs::gui {

// Presenting anything (a lesson, a session, a model) gives the view the whole width: the Model panel
// is hidden, the layer control moves into the view's toolbar.
bool sidebar_shown(const AppState& state) { return !state.present.active; }

bool toolbar_layer_control(const AppState& state, int layers) { return layers > 1 && !sidebar_shown(state); }

void draw_layer_control(AppState& state, int layers) {
  if (layers <= 1) return;
  state.layer = std::clamp(state.layer, 0, layers - 1);
  ImGui::AlignTextToFramePadding();
  ImGui::Text("layer %d of %d", state.layer, layers);
  ImGui::SameLine();
  ImGui::TextDisabled("(L0 to L%d)", layers - 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Layers count from L0, as the maps' titles do. Up and Down arrows step through them.");
  LockScope lock(state, LessonControl::layer);  // a lesson step may lock it
  if (ImGui::Button("-##layer", ImVec2(ImGui::GetFrameHeight(), 0))) state.layer = std::max(state.layer - 1, 0);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  const float button = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
  ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - button, ImGui::GetFontSize() * 4));
  // No number on the knob: the line above says which layer.
  ImGui::SliderInt("##layer", &state.layer, 0, layers - 1, "", ImGuiSliderFlags_AlwaysClamp);
  ImGui::SameLine(0, ImGui::GetStyle().ItemInnerSpacing.x);
  if (ImGui::Button("+##layer", ImVec2(ImGui::GetFrameHeight(), 0))) state.layer = std::min(state.layer + 1, layers - 1);
  state.layer = std::clamp(state.layer, 0, layers - 1);
}

}  // namespace hs::gui
