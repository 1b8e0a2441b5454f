#include <imgui_internal.h>

#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/app_keys.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/state/selection.h"
#include "app/gui/actions/unsaved_guard.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

constexpr int kKeyQ = 'Q', kKeyE = 'E';
constexpr const char* kFirstLessonName = "multi_head_attention";  // lesson 1 (assets/lessons/)

constexpr ImGuiWindowFlags kFixed = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                    ImGuiWindowFlags_NoBringToFrontOnFocus | ImGuiWindowFlags_NoSavedSettings;

void draw_view(AppState& state, const UiContext& ui, View view) {
  ImGui::BeginChild("view", ImVec2(0, 0), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  if (ui.derived) {
    view_panel(view)(state, ui);  // the tabs' panels: view_panels.cpp
  } else {
    ImGui::TextDisabled("%s", ui.status.computing ? "computing..." : "nothing to show yet: see the status line");
    if (ui.status.computing && ui.status.work_total > 0) {  // two models opened together: their steps
      ImGui::ProgressBar(float(ui.status.work_done) / float(ui.status.work_total), ImVec2(ImGui::GetFontSize() * 10, 0),
                         format("%d / %d", ui.status.work_done, ui.status.work_total).c_str());
      ImGui::SameLine();
      ImGui::TextDisabled("comparing two models: models read, layers run");
    }
  }
  ImGui::EndChild();
}

// Presenting with Ctrl + past the default size: the view is laid out larger than the window
// (maps and text grow together) and scrolls.
void draw_zoomed_view(AppState& state, const UiContext& ui, View view, float zoom) {
  if (zoom <= 1.001f) return draw_view(state, ui, view);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  ImGui::BeginChild("zoom", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  ImGui::BeginChild("zoomed", ImVec2(avail.x * zoom, avail.y * zoom), false, ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse);
  draw_view(state, ui, view);
  ImGui::EndChild();
  ImGui::EndChild();
}

// The synthetic layer's weights are random: said where the maps are, so nobody reads meaning
// into its patterns, with the ways to a model that has learned something (issue 30).
void random_weights_note(const AppState& state, const UiContext& ui) {
  if (!ui.derived || state.lesson.lesson || ui.derived->run().info.kind != "synthetic") return;
  ImGui::PushTextWrapPos(0);
  ImGui::TextColored(tone(Tone::warning),
                     "Random weights: this synthetic layer has learned nothing, so its patterns are noise, not meaning. "
                     "For learned heads open a trained model (Model panel: checkpoint, "
                     "assets/models/stories260K/stories260K.bin, or drop it on the window), or start a lesson "
                     "(Lessons menu) with the teaching model, whose heads are wired to do one job each.");
  ImGui::PopTextWrapPos();
}

// The teaching model outside a lesson (the first screen, issue 46): what its tiles say, and the
// way into lesson 1.
void teaching_model_note(AppState& state, const UiContext& ui) {
  if (!ui.derived || state.lesson.lesson || ui.derived->run().info.kind != "teaching") return;
  ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));  // the way in, marked
  const bool start = ImGui::Button("Start lesson 1");
  ImGui::PopStyleColor();
  if (start) {
    try {
      ask_action(state, lesson_action(find_lesson(kFirstLessonName), 0));
    } catch (const Error&) {  // embedded in the program; read at start too (a broken one is said on stderr)
    }
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Lessons > Multi-head attention, one idea at a time: from its first step");
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::PushTextWrapPos(0);
  ImGui::TextUnformatted("The teaching model: each head is wired by hand for one job, named on its tile.");
  ImGui::PopTextWrapPos();
}

void draw_views(AppState& state, const UiContext& ui) {
  random_weights_note(state, ui);
  teaching_model_note(state, ui);
  const float zoom = state.present.active ? std::max(1.0f, state.present.font_scale / PresentationState{}.font_scale) : 1.0f;
  // Presenting a step that keeps its tab: no tab bar, the view takes its room.
  bool tabs = !(state.present.active && state.lesson.lesson);
  for (View tab : tab_views()) tabs = tabs || (tab != state.view && tab_unlocked(state, tab));
  if (!tabs) {
    state.tab_shown = state.view;
    draw_zoomed_view(state, ui, state.view, zoom);
    return;
  }
  if (!ImGui::BeginTabBar("views", ImGuiTabBarFlags_None)) return;
  // Another view than last frame's tab (request_view, an undo, a session): its tab is selected,
  // and shows from the next frame. Otherwise the tab ImGui shows (the user's click) is the view.
  const bool forced = view_switch_pending(state);
  state.tab_shown = state.view;
  for (View tab : tab_views()) {
    // A lesson step keeps its own tab and those it unlocks ("panel": every tab).
    if (!tab_unlocked(state, tab)) continue;
    const ImGuiTabItemFlags flags = (forced && state.view == tab) ? ImGuiTabItemFlags_SetSelected : 0;
    if (ImGui::BeginTabItem(view_descriptor(tab).title, nullptr, flags)) {
      if (!forced) state.view = state.tab_shown = tab;
      draw_zoomed_view(state, ui, tab, zoom);
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
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyQ, false)) ask_action(state, quit_action());
  handle_app_keys(state, ui.derived != nullptr);  // undo, open / save, UI size, Enter (app_keys.h)
  if (io.KeyCtrl && ImGui::IsKeyPressed(kKeyE, false) && ui.derived) open_export_dialog(state, ui);
  // In a lesson the arrows step through it (lesson_player.h); after Tab they move ImGui's focus.
  if (handle_lesson_keys(state) || io.WantTextInput || !ui.derived || state.keyboard_nav) return;
  const int heads = ui.derived->run().n_heads(), tokens = ui.derived->run().n_tokens();
  const auto pressed = [](ImGuiKey key) { return int(ImGui::IsKeyPressed(ImGui::GetKeyIndex(key))); };
  const int dx = pressed(ImGuiKey_RightArrow) - pressed(ImGuiKey_LeftArrow);
  const int dy = pressed(ImGuiKey_DownArrow) - pressed(ImGuiKey_UpArrow);
  if (dx == 0 && dy == 0) return;
  ImGui::GetCurrentContext()->NavDisableHighlight = true;  // the arrows moved the selection, not ImGui's focus
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

// Presentation mode: a large ring at the mouse so the room can follow the pointer (P toggles).
void draw_pointer_highlight() {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!ImGui::IsMousePosValid(&m)) return;
  ImDrawList* dl = ImGui::GetForegroundDrawList();
  const float r = ImGui::GetFontSize() * 2.2f;
  dl->AddCircleFilled(m, r, accent_colour(0.16f), 48);
  dl->AddCircle(m, r, accent_colour(0.85f), 48, std::max(3.0f, ImGui::GetFontSize() * 0.18f));
}

// Presenting a lesson, the caption goes beside the maps when the window's height is what holds
// them: one large map (the Single head view, a head opened in the grid) or the all-layers
// overview (a row per layer). Returns the caption column's width, 0 for a strip across the top.
// The maps then take the full height and the width the column leaves: a single map needs about
// its height plus its labels, colour bar and the head's facts (six lines wide), the overview
// heads / layers times that.
float caption_column_width(const AppState& state, const UiContext& ui, float width, float height) {
  if (!state.present.active || !state.lesson.lesson || !ui.derived) return 0;
  const int heads = ui.derived->run().n_heads(), layers = ui.derived->run().n_layers();
  float maps_w = 0;
  if (state.view == View::head || (state.view == View::heads && state.grid.opened >= 0 && state.grid.opened < heads))
    maps_w = height * 1.22f + ImGui::GetFontSize() * 6;  // and a side column wide enough for the head's facts above its bar
  else if (state.view == View::heads && state.grid.all_layers && layers > 1 && ui.derived->compare.empty())
    maps_w = height * 0.9f * float(heads) / float(layers) + ImGui::GetFontSize() * 9;
  else
    return 0;
  // An overview wider than the window (the teaching model's 2 layers of 4 heads) is held by the
  // width: a column would only shrink it, so the caption goes across the top.
  if (maps_w >= width) return 0;
  const float least = std::max(width * 0.15f, lesson_column_min_width(state, ui));
  return std::clamp(width - maps_w, least, std::max(width * 0.34f, least));
}

}  // namespace

void draw_app(AppState& state, const UiContext& ui) {
  set_label_space_mark(state.space_mark);  // every token label this frame (widgets/labels.h)
  if (ui.derived) clamp_selection(state, *ui.derived);
  handle_shortcuts(state, ui);
  const bool present = state.present.active;
  if (!present) draw_menu(state, ui);
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float f = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  // Presenting a lesson, the maps take the room: the sentence only when the step unlocks it,
  // the controls it unlocks in the caption strip (no side column), the status line only to
  // report an error.
  const bool lesson_present = present && state.lesson.lesson != nullptr;
  const bool sentence_bar = !lesson_present || !control_locked(state, LessonControl::sentence);
  const bool status_bar = !present || !ui.status.error.empty();
  const float status_h = status_bar ? f + style.WindowPadding.y * 2 + 2 : 0.0f;
  const float top_h = sentence_bar ? sentence_bar_height(state, ui, vp->WorkSize.x) : 0.0f;
  const bool sidebar = sidebar_shown(state);
  const float side_max = vp->WorkSize.x * (present ? 0.25f : 0.45f);
  const float side_w = sidebar ? std::clamp(state.sidebar_width * (f / 17.0f), std::min(220.0f, side_max), side_max) : 0.0f;

  if (sentence_bar) {
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, top_h));
    ImGui::SetNextWindowBgAlpha(0.0f);  // painted by the clear (see ##views)
    if (ImGui::Begin("##sentence", nullptr, kFixed)) draw_sentence(state, ui);
    ImGui::End();
  }

  // The lesson's caption strip under the sentence, across the whole window, or a column left of
  // the maps when they are held by the height (caption_column_width).
  const float column_w = caption_column_width(state, ui, vp->WorkSize.x, vp->WorkSize.y - top_h - status_h);
  const float lesson_h = column_w > 0 ? 0.0f : std::min(lesson_panel_height(state, ui, vp->WorkSize.x), vp->WorkSize.y * 0.35f);
  if (lesson_h > 0 || column_w > 0) {
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + top_h));
    ImGui::SetNextWindowSize(column_w > 0 ? ImVec2(column_w, vp->WorkSize.y - top_h - status_h) : ImVec2(vp->WorkSize.x, lesson_h));
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
    ImGui::SetNextWindowBgAlpha(0.0f);  // painted by the clear (see ##views)
    if (ImGui::Begin("##model", nullptr, kFixed & ~ImGuiWindowFlags_NoScrollbar)) draw_model(state, ui);
    ImGui::End();
    draw_splitter(state, ImVec2(vp->WorkPos.x + side_w, middle_y), middle_h, f / 17.0f);
  }

  // Presenting: maps framed against the page, and hidden until revealed (H).
  UiContext view_ui = ui;
  view_ui.frame_maps = present;
  view_ui.hide_maps = present && state.present.maps_hidden;
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + side_w + column_w, middle_y));
  ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x - side_w - column_w, middle_h));
  // The frame is cleared to WindowBg (Window::render), so the tiled windows leave their background
  // transparent: on a software rasteriser (llvmpipe) a full-window layer less every frame.
  ImGui::SetNextWindowBgAlpha(0.0f);
  if (ImGui::Begin("##views", nullptr, kFixed)) draw_views(state, view_ui);
  ImGui::End();

  if (status_bar) {
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x, vp->WorkPos.y + vp->WorkSize.y - status_h));
    ImGui::SetNextWindowSize(ImVec2(vp->WorkSize.x, status_h));
    ImGui::SetNextWindowBgAlpha(0.0f);  // painted by the clear (see ##views)
    if (ImGui::Begin("##status", nullptr, kFixed)) draw_status(state, ui);
    ImGui::End();
  }
  // Dialogs float over everything, presenting or not.
  draw_session_dialog(state);
  draw_export_dialog(state, ui);
  draw_unsaved(state);
  draw_lesson_problems(state);
  if (present && state.present.pointer) draw_pointer_highlight();
  // Undo snapshots once the state settles: no control held, no text being typed.
  record_undo(state, !ImGui::IsAnyItemActive() && !ImGui::GetIO().WantTextInput);
}

}  // namespace hs::gui
