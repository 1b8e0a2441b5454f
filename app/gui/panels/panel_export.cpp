// Export... (a path box; the folder is remembered) and Copy data (CSV of the current map).
// The panel only sets requests in AppState; the main loop does the work and reports in the
// status line.
#include <imgui.h>
#include <imgui_stdlib.h>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/panels/panels.h"

namespace hs::gui {

void draw_export(AppState& state, const UiContext& ui) {
  ExportPanelState& e = state.exporter;
  ImGui::BeginDisabled(ui.derived == nullptr);
  // Ctrl+E (app_keys.h) sets open_requested: whatever export UI there is opens.
  const bool asked = e.open_requested && ui.derived != nullptr;
  e.open_requested = false;
  if (ImGui::Button("Export...") || asked) ImGui::OpenPopup("export");
  ImGui::SameLine();
  if (ImGui::Button("Copy data")) e.copy_requested = true;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Copy the current map (or the difference table) as CSV");
  ImGui::EndDisabled();
  if (ImGui::BeginPopup("export")) {
    const char* what = state.view == View::heads        ? "all heads of the layer (grid)"
                       : state.view == View::difference ? "the head-difference table"
                       : state.view == View::width      ? "the head-count sweep"
                                                        : "the selected head";
    ImGui::Text("Export %s", what);
    ImGui::TextDisabled(".png .svg .pdf: the figure   .npy .csv: the numbers   .json: everything");
    const float w = ImGui::GetFontSize() * 26;
    ImGui::SetNextItemWidth(w);
    ImGui::InputTextWithHint("folder", "current folder", &e.folder);
    ImGui::SetNextItemWidth(w);
    const bool enter = ImGui::InputText("file", &e.file_name, ImGuiInputTextFlags_EnterReturnsTrue);
    if (ImGui::Button("Save") || enter) {
      e.save_requested = true;
      ImGui::CloseCurrentPopup();
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
}

}  // namespace hs::gui
