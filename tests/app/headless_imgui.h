#pragma once
// An ImGui context with no renderer, set up as the app's panels expect (fonts, style, a built
// font atlas), for the headless panel tests.
#include <imgui.h>

#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui::test {

inline void start_headless_imgui(ImVec2 display, UiContext& ui) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = nullptr;
  io.DisplaySize = display;
  io.DeltaTime = 1.0f / 60.0f;
  const FontRanges ranges = font_ranges({});  // used by the build below, then not needed
  ui.fonts = load_fonts(1.0f, ranges);
  apply_style(1.0f);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
}

}  // namespace hs::gui::test
