// The "Unsaved changes" popup: shown while an action that would replace the session (or quit)
// waits for an answer (unsaved_guard.h). Save... opens the save dialog and continues after a
// successful save; Discard continues; Cancel (or Esc) keeps everything as it is.
#include <imgui.h>

#include "app/gui/panels/panels.h"
#include "app/gui/actions/unsaved_guard.h"

namespace hs::gui {

void draw_unsaved(AppState& state) {
  constexpr const char* kTitle = "Unsaved changes";
  const bool wanted = unsaved_popup_wanted(state);
  if (wanted && !ImGui::IsPopupOpen(kTitle)) ImGui::OpenPopup(kTitle);
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (!ImGui::BeginPopupModal(kTitle, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings))
    return;
  if (!wanted) {  // answered elsewhere (or nothing waits any more)
    ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return;
  }
  const std::string what = describe_action(state.unsaved.waiting);
  ImGui::Text("The session has changes that are not saved.");
  ImGui::Text("Save them before you %s?", what.c_str());
  ImGui::Spacing();
  const float w = ImGui::GetFontSize() * 6;
  UnsavedChoice choice = UnsavedChoice::cancel;
  bool answered = false;
  if (ImGui::Button("Save...", ImVec2(w, 0))) choice = UnsavedChoice::save, answered = true;
  ImGui::SameLine();
  if (ImGui::Button("Discard", ImVec2(w, 0))) choice = UnsavedChoice::discard, answered = true;
  ImGui::SameLine();
  if (ImGui::Button("Cancel", ImVec2(w, 0)) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false))
    choice = UnsavedChoice::cancel, answered = true;
  if (answered) {
    answer_unsaved(state, choice);
    ImGui::CloseCurrentPopup();
  }
  ImGui::EndPopup();
}

}  // namespace hs::gui
