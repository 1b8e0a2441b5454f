#pragma once
// A test fixture that draws the whole app headlessly (no window, no renderer), one frame at a
// time, with the mouse where the test puts it, and keeps what each frame drew
// (report_: every heatmap's key and rectangle, and the panels). The panel, explore and ablation tests
// derive from it; a fixture that needs another display size passes it to the constructor.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cfloat>
#include <string>

#include "app/gui/panels/panels.h"
#include "app/gui/widgets/ui_context.h"
#include "headless_imgui.h"

namespace hs::gui::test {

class HeadlessApp : public ::testing::Test {
 protected:
  explicit HeadlessApp(ImVec2 display = ImVec2(1600, 1000)) : display_(display) {}
  void SetUp() override {
    start_headless_imgui(display_, ui_);
    ui_.images = &images_;
    ui_.report = &report_;
  }
  void TearDown() override {
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  }

  // One frame of the whole app; the wheel turns for this frame only.
  void frame(AppState& state, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false, float wheel = 0) {
    ImGui::GetIO().MouseWheel = wheel;
    app_frame(state, ui_, report_, mouse, down);
    ImGui::GetIO().MouseWheel = 0;
  }
  // The heatmap the last frame drew under `key`, or null.
  const DrawnHeatmap* drawn(const std::string& key) const {
    for (const DrawnHeatmap& h : report_.heatmaps)
      if (h.key == key) return &h;
    return nullptr;
  }
  static ImVec2 centre(const DrawnHeatmap& h) { return ImVec2((h.min.x + h.max.x) * 0.5f, (h.min.y + h.max.y) * 0.5f); }

  ImVec2 display_;
  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
};

}  // namespace hs::gui::test
