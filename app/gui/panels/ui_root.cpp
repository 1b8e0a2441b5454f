#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/selection.h"
#include "app/gui/actions/unsaved_guard.h"

namespace hs::gui {
namespace {

constexpr int kKeyL = 'L', kKeyQ = 'Q';

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings;

using DrawView = void (*)(AppState&, const UiContext&);

// The panel that draws each view (the tabs' names and order: state/views.h).
DrawView view_panel(View view) {
  switch (view) {
    case View::heads: return draw_grid;
    case View::head: return draw_head;
    case View::query: return draw_query;
    case View::difference: return draw_difference;
    case View::average: return draw_average;
    case View::width: return draw_width;
    case View::roles: return draw_roles;
    case View::ablation: return draw_ablation;
  }
  return draw_grid;
}

void draw_views(AppState& state, const UiContext& ui) {
  if (!ImGui::BeginTabBar("views", ImGuiTabBarFlags_None)) return;
  const bool forced = state.view_requested;
  state.view_requested = false;
  for (const ViewInfo& tab : all_views()) {
    // A lesson step that does not unlock "panel" keeps its own tab.
    if (control_locked(state, "panel") && tab.view != state.view) continue;
    const ImGuiTabItemFlags flags = (forced && state.view == tab.view) ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(tab.tab, nullptr, flags)) {
      if (!forced) state.view = tab.view;
      ImGui::BeginChild("view", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
      if (ui.derived) {
        view_panel(tab.view)(state, ui);
      } else {
        ImGui::TextDisabled("%s", ui.status.computing ? "computing..." : "nothing to show yet: see the status line");
      }
      ImGui::EndChild();
      ImGui::EndTabItem();
    }
  }
  ImGui::EndTabBar();
}

// A thin invisible window on the sidebar's right edge: drag it to resize the sidebar.
void draw_splitter(AppState& state, ImVec2 pos, float height, float unit) {
  const float w = 8.0f;
  ImGui::SetNextWindowPos(ImVec2(pos.x - w * 0.5f, pos.y));
  ImGui::SetNextWindowSize(ImVec2(w, height));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::PushStyleColor(ImGuiCol_WindowBg, ImVec4(0, 0, 0, 0));
  if (ImGui::Begin("##splitter", nullptr, kFixed & ~ImGuiWindowFlags_NoBringToFrontOnFocus)) {
    ImGui::InvisibleButton("splitter", ImVec2(w, height));
    if (ImGui::IsItemHovered() || ImGui::IsItemActive()) {
      ImGui::SetMouseCursor(ImGuiMouseCursor_ResizeEW);
      ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(pos.x - 1, pos.y), ImVec2(pos.x + 2, pos.y + height),
                                                accent_colour(0.6f));
    }
    if (ImGui::IsItemActive()) state.sidebar_width = std::clamp(state.sidebar_width + ImGui::GetIO().MouseDelta.x / unit, 220.0f, 900.0f);
  }
  ImGui::End();
  ImGui::PopStyleColor();
  ImGui::PopStyleVar();
}

}  // namespace

void handle_shortcuts(AppState& state, const UiContext& ui) {
  ImGuiIO& io = ImGui::GetIO();
  // ImGui 1.86 indexes keys by the backend's codes; GLFW's letter keys are their ASCII codes.
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyL, false)) state.sentence.focus_requested = true;
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyQ, false)) ask_action(state, quit_action());
  // In a lesson the arrows step through it (lesson_player.h).
  if (handle_lesson_keys(state) || io.WantTextInput || !ui.derived) return;
  const int heads = ui.derived->run().n_heads(), tokens = ui.derived->run().n_tokens();
  const auto pressed = [](ImGuiKey key) { return int(ImGui::IsKeyPressed(ImGui::GetKeyIndex(key))); };
  const int dx = pressed(ImGuiKey_RightArrow) - pressed(ImGuiKey_LeftArrow);
  const int dy = pressed(ImGuiKey_DownArrow) - pressed(ImGuiKey_UpArrow);
  if (dx == 0 && dy == 0) return;
  if (state.view == View::query && tokens > 0) {
    // Left/right move the (single) query token.
    const int q = shown_queries(state, tokens).back();
    state.query.queries = {std::clamp(q + dx + dy, 0, tokens - 1)};
  } else if (heads > 0) {
    state.head = std::clamp(state.head + dx, 0, heads - 1);
    state.layer = std::clamp(state.layer + dy, 0, std::max(ui.derived->run().n_layers() - 1, 0));
  }
}

namespace {

// Presentation mode: a soft circle at the mouse so the room can follow the pointer.
void draw_pointer_highlight() {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!ImGui::IsMousePosValid(&m)) return;
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  const float r = ImGui::GetFontSize() * 1.6f;
  dl->AddCircleFilled(m, r, IM_COL32(255, 214, 64, 60), 48);
  dl->AddCircle(m, r, IM_COL32(255, 214, 64, 170), 48, 3.0f);
}

}  // namespace

void draw_app(AppState& state, const UiContext& ui) {
  if (ui.derived) clamp_selection(state, *ui.derived);
  handle_shortcuts(state, ui);
  const bool present = state.present.active;
  if (!present) draw_menu(state, ui);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float f = ImGui::GetFontSize();
  const float status_h = f + ImGui::GetStyle().WindowPadding.y * 2 + 2;
  const ImGuiStyle& style = ImGui::GetStyle();
  const float title_f = ui.fonts.title ? ui.fonts.title->FontSize : f;
  const float top_h = title_f + f + style.FramePadding.y * 2 + style.ItemSpacing.y + style.WindowPadding.y * 2 + 4;
  // Presentation mode with a lesson: a narrow column with only the unlocked controls, or none.
  const bool lesson_present = present && state.lesson.lesson != nullptr;
  const bool sidebar = !lesson_present || lesson_controls_unlocked(state);
  const float side_max = vp->WorkSize.x * (lesson_present ? 0.17f : present ? 0.25f : 0.45f);  // the maps get the room
  const float side_w = sidebar ? std::clamp(state.sidebar_width * (f / 17.0f), std::min(220.0f, side_max), side_max) : 0.0f;

  ImGui::SetNextWindowPos(vp->WorkPos);
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, top_h));
  if (ImGui::Begin("##sentence", nullptr, kFixed)) draw_sentence(state, ui);
  ImGui::End();

  // The lesson's caption strip under the sentence, across the whole window.
  const float lesson_h = std::min(lesson_panel_height(state, ui, vp->WorkSize.x), vp->WorkSize.y * 0.35f);
  if (lesson_h > 0) {
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + top_h));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, lesson_h));
    ImGui::PushStyleColor(ImGuiCol_WindowBg, ImGui::GetStyleColorVec4(ImGuiCol_ChildBg));
    if (ImGui::Begin("##lesson", nullptr, kFixed & ~ImGuiWindowFlags_NoScrollbar)) draw_lesson(state, ui);
    ImGui::End();
    ImGui::PopStyleColor();
  }
  const float middle_y = vp->WorkPos.y + top_h + lesson_h;
  const float middle_h = std::max(vp->WorkSize.y - top_h - lesson_h - status_h, 50.0f);
  if (sidebar) {
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, middle_y));
    ImGui::SetNextWindowSize(ImVec2(side_w, middle_h));
    if (ImGui::Begin("##model", nullptr, kFixed & ~ImGuiWindowFlags_NoScrollbar)) {
      if (lesson_present) draw_lesson_controls(state, ui);
      else draw_model(state, ui);
    }
    ImGui::End();
    draw_splitter(state, ImVec2(vp->WorkPos.x + side_w, middle_y), middle_h, f / 17.0f);
  }

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + side_w, middle_y));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - side_w, middle_h));
  if (ImGui::Begin("##views", nullptr, kFixed)) draw_views(state, ui);
  ImGui::End();

  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - status_h));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, status_h));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(ImGui::GetStyle().WindowPadding.x, ImGui::GetStyle().WindowPadding.y));
  if (ImGui::Begin("##status", nullptr, kFixed)) draw_status(state, ui);
  ImGui::End();
  ImGui::PopStyleVar();
  // Dialogs float over everything, presenting or not.
  draw_session_dialog(state);
  draw_unsaved(state);
  if (present && state.present.pointer) draw_pointer_highlight();
}

}  // namespace hs::gui
