// The menu bar: File (new / open / save a session, presentation mode, quit) and Lessons (the
// shipped lessons, stepping, captions), and the save/open dialog. Save and open only set
// requests in AppState; what would replace unsaved work asks first (unsaved_guard.h); the main
// loop does the file work (session_bridge.h) and reports in the status line.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "app/gui/actions/app_keys.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/settings.h"
#include "app/gui/panels/panels.h"
#include "app/gui/actions/unsaved_guard.h"

namespace hs::gui {
namespace {

namespace fs = std::filesystem;

// "…" and the last `most` bytes of a long folder (a whole UTF-8 character first).
std::string shorten_left(const std::string& s, size_t most) {
  if (s.size() <= most) return s;
  size_t at = s.size() - most;
  while (at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) ++at;
  return "\xE2\x80\xA6" + s.substr(at);
}

// Open: the folder's session files, then the recent ones; a click opens one. Returns the path
// chosen ("" for none). The folder is read when the dialog opens or the folder box changes.
std::string session_lists(SessionPanelState& s, float width) {
  if (!s.listed || s.listed_folder != s.folder) {
    s.listing = list_session_files(s.folder);
    s.listed_folder = s.folder, s.listed = true;
  }
  std::string chosen;
  const std::string where = s.folder.empty() ? "the current folder" : shorten_left(s.folder, 48);
  if (s.listing.empty()) ImGui::TextDisabled("no session or lesson files in %s", where.c_str());
  else ImGui::TextDisabled("session and lesson files in %s (click one to open it)", where.c_str());
  const float line = ImGui::GetTextLineHeightWithSpacing(), pad = ImGui::GetStyle().WindowPadding.y * 2;
  if (!s.listing.empty()) {
    ImGui::BeginChild("session files", ImVec2(width, std::min(float(s.listing.size()), 8.0f) * line + pad), true);
    for (const std::string& name : s.listing)
      if (ImGui::Selectable(name.c_str(), name == s.file_name)) chosen = s.folder.empty() ? name : (fs::path(s.folder) / name).string();
    ImGui::EndChild();
  }
  if (!s.recent.empty()) {
    ImGui::TextDisabled("recent sessions");
    ImGui::BeginChild("recent sessions", ImVec2(width, std::min(float(s.recent.size()), 5.0f) * line + pad), true);
    for (size_t i = 0; i < s.recent.size(); ++i) {
      const fs::path p(s.recent[i]);
      const std::string label = p.filename().string() + "  (" + shorten_left(p.parent_path().string(), 40) + ")##recent" + std::to_string(i);
      if (ImGui::Selectable(label.c_str())) chosen = s.recent[i];
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.recent[i].c_str());
    }
    ImGui::EndChild();
  }
  return chosen;
}

}  // namespace

void draw_session_dialog(AppState& state) {
  SessionPanelState& s = state.session;
  if (s.dialog == SessionDialog::none) return;
  const bool saving = s.dialog == SessionDialog::save;
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  bool open = true;
  if (ImGui::Begin(saving ? "Save session###session" : "Open session###session", &open,
                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::TextDisabled("%s", saving ? "The sentence, model, selection, view and colour scale as a small JSON file."
                                     : "A .json session opens as saved, a lesson file starts its lesson; any other file or "
                                       "folder opens as a model.");
    const float w = ImGui::GetFontSize() * 26;
    ImGui::SetNextItemWidth(w);
    ImGui::InputTextWithHint("folder", "current folder", &s.folder);
    ImGui::SetNextItemWidth(w);
    const bool enter = ImGui::InputText("file", &s.file_name, ImGuiInputTextFlags_EnterReturnsTrue);
    const std::string chosen = saving ? std::string() : session_lists(s, w + ImGui::CalcTextSize("folder").x);
    if (!chosen.empty()) {
      state.commands.push(OpenFiles{{chosen}});
      open = false;
    }
    if (ImGui::Button(saving ? "Save" : "Open") || enter) {
      if (saving) state.commands.push(SaveSession{});
      else state.commands.push(OpenFiles{{session_path(s)}});
      open = false;
    }
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) open = false;
  }
  ImGui::End();
  if (!open) s.dialog = SessionDialog::none, s.listed = false;  // read the folder again next time
}

namespace {

void draw_lessons_menu(AppState& state, const UiContext& ui) {
  if (!ImGui::BeginMenu("Lessons")) return;
  if (ui.lessons)
    for (const auto& lesson : *ui.lessons) {
      const bool on = state.lesson.lesson && state.lesson.lesson->title == lesson->title;
      if (ImGui::MenuItem(lesson->title.c_str(), nullptr, on)) ask_action(state, lesson_action(lesson, 0));
    }
  ImGui::Separator();
  const bool active = state.lesson.lesson != nullptr;
  if (ImGui::MenuItem("Next step", "Right", false, active)) go_to_step(state, state.lesson.step + 1);
  if (ImGui::MenuItem("Previous step", "Left", false, active)) go_to_step(state, state.lesson.step - 1);
  if (ImGui::MenuItem("First step", "Home", false, active)) go_to_step(state, 0);
  ImGui::MenuItem("Captions", "C", &state.lesson.captions, active);
  if (ImGui::MenuItem("Leave the lesson", nullptr, false, active)) stop_lesson(state);
  ImGui::EndMenu();
}

// The memory budget (MiB; 0 automatic): an exact map in long-input mode, or a model B, that would
// pass it is refused. A --memory-budget or HEADSCOPE_MEMORY_BUDGET holds for this session and is
// shown, not edited.
void draw_memory_budget_item(AppState& state) {
  ImGui::Separator();
  const std::string source = memory_budget_source(state);
  if (source.rfind("View", 0) != 0) {
    ImGui::TextDisabled("Memory budget %.0f MiB (%s)", double(memory_budget_bytes(state)) / (1024.0 * 1024.0), source.c_str());
    return;
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7);
  int mib = state.memory_budget_mib;
  if (ImGui::InputInt("Memory budget (MiB)", &mib, 256, 1024, ImGuiInputTextFlags_EnterReturnsTrue))
    state.memory_budget_mib = mib <= 0 ? 0 : std::clamp(mib, kMinMemoryBudgetMib, kMaxMemoryBudgetMib);
  if (state.memory_budget_mib == 0) {
    ImGui::SameLine();
    ImGui::TextDisabled("automatic: %.0f MiB", double(automatic_memory_budget_bytes()) / (1024.0 * 1024.0));
  }
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Opening a head's exact map of a long text (T x T floats), or comparing with a model B, is\n"
                      "refused when it would pass this. 0: automatic, 3/4 of this machine's memory.\n"
                      "The status line shows the memory in use.");
}

// View: the theme (dark, or light for projectors and print) and presentation mode's aids.
void draw_view_menu(AppState& state) {
  if (!ImGui::BeginMenu("View")) return;
  for (const Theme t : {Theme::dark, Theme::light})
    if (ImGui::MenuItem(t == Theme::dark ? "Dark theme" : "Light theme (projectors, print)", nullptr, state.theme == t))
      set_theme(state, t);
  ImGui::Separator();
  // A token's space: a thin dot before the word, or nothing (figures exported from here follow).
  if (ImGui::MenuItem("Show spaces in tokens as \xC2\xB7", nullptr, state.space_mark == SpaceMark::dot))
    state.space_mark = state.space_mark == SpaceMark::dot ? SpaceMark::none : SpaceMark::dot;
  draw_memory_budget_item(state);
  ImGui::Separator();
  ImGui::MenuItem("Presentation mode", "F5", &state.present.active);
  ImGui::MenuItem("Pointer ring when presenting", "P", &state.present.pointer);
  ImGui::MenuItem("Hide the maps on each new step", nullptr, &state.present.hide_each_step);
  ImGui::EndMenu();
}

}  // namespace

void draw_menu(AppState& state, const UiContext& ui) {
  if (ImGui::BeginMainMenuBar()) {
    if (ImGui::BeginMenu("File")) {
      if (ImGui::MenuItem("New session")) ask_action(state, reset_action());
      if (ImGui::MenuItem("Open session...", "Ctrl+O")) state.session.dialog = SessionDialog::open;
      if (ImGui::MenuItem("Open lesson...")) state.session.dialog = SessionDialog::open;  // the same box: a lesson file starts
      if (ImGui::MenuItem("Save session...", "Ctrl+S")) state.session.dialog = SessionDialog::save;
      if (ImGui::MenuItem("Export...", "Ctrl+E", false, ui.derived != nullptr)) open_export_dialog(state, ui);
      ImGui::Separator();
      ImGui::MenuItem("Presentation mode", "F5", &state.present.active);
      if (ImGui::MenuItem("Larger interface", "Ctrl+=")) step_ui_scale(state, 1);
      if (ImGui::MenuItem("Smaller interface", "Ctrl+-")) step_ui_scale(state, -1);
      ImGui::MenuItem("Show frame time", nullptr, &state.show_frame_time);
      ImGui::Separator();
      if (ImGui::MenuItem("Quit", "Ctrl+Q")) ask_action(state, quit_action());
      ImGui::EndMenu();
    }
    draw_view_menu(state);
    draw_lessons_menu(state, ui);
    ImGui::TextDisabled("  drop a session (.json) or a model file/folder on the window to open it");
    ImGui::EndMainMenuBar();
  }
}

}  // namespace hs::gui
