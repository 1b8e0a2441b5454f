#include "app/gui/actions/app_keys.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>

namespace hs::gui {
namespace {

// ImGui 1.86 indexes keys by the backend's codes; GLFW's letters and digits are their ASCII codes.
constexpr int kKeyZ = 'Z', kKeyY = 'Y', kKeyO = 'O', kKeyS = 'S', kKey0 = '0';
constexpr int kKeyEqual = '=', kKeyMinus = '-';
constexpr int kKeypadAdd = 334, kKeypadSubtract = 333;  // GLFW_KEY_KP_ADD, _KP_SUBTRACT

bool key(int code) { return ImGui::IsKeyPressed(code, true); }
bool named(ImGuiKey k, bool repeat = false) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k), repeat); }

}  // namespace

bool zoom_in_pressed() { return key(kKeyEqual) || key(kKeypadAdd); }
bool zoom_out_pressed() { return key(kKeyMinus) || key(kKeypadSubtract); }

void step_ui_scale(AppState& state, int steps) {
  // 10 % a step, rounded so that repeated steps come back to 1 exactly.
  const float s = std::round(state.ui_scale * 10.0f + float(steps)) / 10.0f;
  state.ui_scale = std::clamp(s, kMinUiScale, kMaxUiScale);
}

void handle_app_keys(AppState& state, bool have_result) {
  ImGuiIO& io = ImGui::GetIO();
  // Tab starts ImGui's keyboard navigation (the arrows then move between controls); Esc or a
  // mouse click gives the arrows back to the heads and queries.
  if (named(ImGuiKey_Tab)) state.keyboard_nav = true;
  if (named(ImGuiKey_Escape) || ImGui::IsMouseClicked(ImGuiMouseButton_Left)) state.keyboard_nav = false;
  // Open and save work from anywhere, a text box too (neither uses these keys).
  // Ctrl+S always saves: to the session's file once it has one, else it asks for a name.
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyO, false)) state.session.dialog = SessionDialog::open;
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyS, false)) {
    if (state.session.named) state.commands.push(SaveSession{});
    else state.session.dialog = SessionDialog::save;
  }
  if (io.WantTextInput) return;  // the text box has its own undo and shortcuts
  if (io.KeyCtrl) {
    if (key(kKeyZ)) (io.KeyShift ? redo(state) : undo(state));
    if (key(kKeyY)) redo(state);
    if (!state.present.active) {  // presenting, Ctrl +/- size the presentation font (lesson_player.h)
      if (zoom_in_pressed()) step_ui_scale(state, 1);
      if (zoom_out_pressed()) step_ui_scale(state, -1);
      if (ImGui::IsKeyPressed(kKey0, false)) state.ui_scale = 1.0f;
    }
    return;
  }
  // Enter on the Heads grid opens the selected head (when Enter is not pressing a focused control).
  if (have_result && state.view == View::heads && !state.keyboard_nav &&
      (named(ImGuiKey_Enter) || named(ImGuiKey_KeyPadEnter)))
    request_view(state, View::head);
}

}  // namespace hs::gui
