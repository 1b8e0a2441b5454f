#pragma once
// An ImGui context with no renderer, set up as the app's panels expect (fonts, style, a built
// font atlas), for the headless panel tests; and the app's frame driven by hand (mouse, keys).
#include <imgui.h>

#include <cfloat>

#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui::test {

// `font_scale` sizes fonts and style as the app does for that content scale; with `present`,
// the presentation style (fonts at PresentationState's scale are the caller's `font_scale`).
inline void start_headless_imgui(ImVec2 display, UiContext& ui, float font_scale = 1.0f, bool present = false,
                                 Theme theme = Theme::dark) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = display;
  io.DeltaTime = 1.0f / 60.0f;
  const FontRanges ranges = font_ranges({});  // used by the build below, then not needed
  ui.fonts = load_fonts(font_scale, ranges);
  if (present) apply_presentation_style(font_scale, theme);
  else apply_style(font_scale, theme);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
}

// The navigation keys as the app's GLFW backend maps them (ImGui 1.86 indexes keys by GLFW's
// codes; letters are their ASCII codes).
constexpr int kKeyEscape = 256, kKeyRight = 262, kKeyLeft = 263, kKeyPageUp = 266, kKeyPageDown = 267, kKeyHome = 268;
inline void map_navigation_keys() {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyMap[ImGuiKey_LeftArrow] = kKeyLeft, io.KeyMap[ImGuiKey_RightArrow] = kKeyRight;
  io.KeyMap[ImGuiKey_PageUp] = kKeyPageUp, io.KeyMap[ImGuiKey_PageDown] = kKeyPageDown, io.KeyMap[ImGuiKey_Home] = kKeyHome;
  io.KeyMap[ImGuiKey_Escape] = kKeyEscape;
}

// One frame of the whole app, the mouse at `mouse` with its left button `down`; `report` (the
// UiContext's) is emptied first so it holds this frame's maps, colour bars and panels.
inline void app_frame(AppState& state, const UiContext& ui, FrameReport& report, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX),
                      bool down = false) {
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = mouse;
  io.MouseDown[0] = down;
  report.heatmaps.clear();
  report.panels.clear();
  report.bars.clear();
  ImGui::NewFrame();
  draw_app(state, ui);
  ImGui::Render();
}

// `key` pressed for one frame and released the next.
inline void press_key(AppState& state, const UiContext& ui, FrameReport& report, int key) {
  ImGui::GetIO().KeysDown[key] = true;
  app_frame(state, ui, report);
  ImGui::GetIO().KeysDown[key] = false;
  app_frame(state, ui, report);
}

}  // namespace hs::gui::test
