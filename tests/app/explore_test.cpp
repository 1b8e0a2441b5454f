// Exploring comfortably (issue 22), driven headless: zoom and pan in the single-head and
// difference views down to exact cells of a long input, hover text naming tokens, thinned labels,
// the scrolling token chips, undo / redo, the keyboard shortcuts and the UI size setting.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <string>

#include "headless_app.h"
#include "app/gui/actions/app_keys.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/actions/settings.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/map_zoom.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/work/run_commands.h"
#include "core/analysis/long_input.h"

namespace {

using namespace hs::gui;
using hs::View;

constexpr int kEnter = 257, kTab = 258, kEscape = 256;

class Explore : public hs::gui::test::HeadlessApp {
 protected:
  void SetUp() override {
    HeadlessApp::SetUp();
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMap[ImGuiKey_Enter] = kEnter, io.KeyMap[ImGuiKey_Tab] = kTab, io.KeyMap[ImGuiKey_Escape] = kEscape;
    io.KeyMap[ImGuiKey_LeftArrow] = 263, io.KeyMap[ImGuiKey_RightArrow] = 262;
  }
  void press(AppState& state, int key, bool ctrl = false, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl, io.KeyShift = shift;
    io.KeysDown[key] = true;
    frame(state);
    io.KeysDown[key] = false;
    frame(state);
    io.KeyCtrl = io.KeyShift = false;
  }
  void set_model(AppState& state) {
    derived_ = compute_derived(state.request, 1);
    ui_.derived = derived_.get();
  }
  AppState long_state() {
    AppState state = default_app_state();
    std::string words;
    for (int i = 0; i < hs::kLongInputTokens + 100; ++i) words += "w" + std::to_string(i % 97) + " ";
    state.request.sentence = words;
    state.request.attention.d_model = 16;
    set_heads(state.request.attention, 4);
    state.request.attention.causal = true;
    return state;
  }

  std::shared_ptr<Derived> derived_;
};

// A 2148-token input in long-input mode, zoomed in until few tokens are in view: the head view
// draws one cell per (query, key), and the cells are the engine's exact weights.
TEST_F(Explore, LongInputZoomsDownToExactCells) {
  AppState state = long_state();
  set_model(state);
  ASSERT_TRUE(derived_->run().compact());
  request_view(state, View::head);
  state.head = 2;
  frame(state);
  frame(state);
  const DrawnHeatmap* h = drawn("head view");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->rows, 716) << "block maxima of 3 x 3 tokens unzoomed";
  // Wheel notches at the centre: the point under the pointer stays put.
  const ImVec2 c = centre(*h);
  for (int i = 0; i < 20; ++i) frame(state, c, false, 1.0f);
  const MapZoom z = state.head_view.zoom;
  EXPECT_LT(z.span, 0.02f);
  EXPECT_NEAR(z.x0 + z.span * 0.5f, 0.5f, 0.01f);
  EXPECT_NEAR(z.y0 + z.span * 0.5f, 0.5f, 0.01f);
  frame(state);
  h = drawn("head view");
  ASSERT_NE(h, nullptr);
  const hs::TokenRegion r = zoom_region(state.head_view.zoom, derived_->run().n_tokens());
  EXPECT_EQ(h->rows, r.rows()) << "one cell per token";
  EXPECT_EQ(h->cols, r.cols());
  // The cells equal the exact rows.
  const hs::RegionMap m = hs::exact_region(derived_->run(), 0, 2, r, 1024);
  ASSERT_EQ(m.factor, 1);
  for (int i = 0; i < r.rows(); ++i) {
    const hs::Vec row = derived_->run().exact->row(0, 2, r.row0 + i);
    for (int j = 0; j < r.cols(); ++j) ASSERT_EQ(m.cells(i, j), row[r.col0 + j]) << "cell " << i << ", " << j;
  }
  // Hovering a cell names its tokens and weight exactly.
  frame(state, c);
  frame(state, c);
  EXPECT_GE(state.sentence.hovered_query, r.row0);
  EXPECT_LT(state.sentence.hovered_query, r.row1);
  // Zoom as far as it goes: a few tokens a side, never fewer.
  for (int i = 0; i < 40; ++i) frame(state, c, false, 1.0f);
  EXPECT_GE(zoom_region(state.head_view.zoom, derived_->run().n_tokens()).rows(), 3);
}

TEST_F(Explore, DragPansAndDoubleClickResets) {
  AppState state = default_app_state();
  state.request.sentence = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
  set_model(state);
  request_view(state, View::head);
  state.head_view.zoom = MapZoom{0.25f, 0.25f, 0.5f};
  frame(state);
  frame(state);
  const DrawnHeatmap* h = drawn("head view");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->rows, 8) << "tokens 3 to 10: the half of 14 tokens, widened to whole tokens";
  const ImVec2 c = centre(*h);
  // Drag to the left by a fifth of the map: the view moves right.
  frame(state, c, false);
  frame(state, c, true);
  const float w = h->max.x - h->min.x;
  for (int i = 1; i <= 5; ++i) frame(state, ImVec2(c.x - w * 0.04f * float(i), c.y), true);
  frame(state, ImVec2(c.x - w * 0.2f, c.y), false);
  EXPECT_GT(state.head_view.zoom.x0, 0.3f);
  EXPECT_NEAR(state.head_view.zoom.y0, 0.25f, 1e-6f);
  EXPECT_FLOAT_EQ(state.head_view.zoom.span, 0.5f);
  // A double-click shows the whole map again.
  for (int i = 0; i < 10; ++i) frame(state);
  frame(state, c, true);
  frame(state, c, false);
  frame(state, c, true);
  frame(state, c, false);
  EXPECT_FALSE(state.head_view.zoom.zoomed());
}

// The difference view zooms its two heads and their difference together.
TEST_F(Explore, DifferenceViewZoomsThePairTogether) {
  AppState state = long_state();
  set_model(state);
  request_view(state, View::difference);
  state.difference.zoom = MapZoom{0.4f, 0.4f, 0.01f};
  frame(state);
  frame(state);
  const DrawnHeatmap *a = drawn("pair a"), *b = drawn("pair b"), *diff = drawn("pair diff");
  ASSERT_TRUE(a && b && diff);
  const hs::TokenRegion r = zoom_region(state.difference.zoom, derived_->run().n_tokens());
  EXPECT_EQ(a->rows, r.rows());
  EXPECT_EQ(b->cols, r.cols());
  EXPECT_EQ(diff->rows, r.rows());
  const ImVec2 c = centre(*a);
  frame(state, c, false, -3.0f);  // wheel out
  EXPECT_GT(state.difference.zoom.span, 0.01f);
}

// The off-thread region worker answers coarse at once, then exact (a panel asks shown_region; the
// frame loop hands its ComputeRegion command to the worker).
TEST(RegionWorker, CoarseAtOnceThenExact) {
  AppState state;
  std::string words;
  for (int i = 0; i < hs::kLongInputTokens + 100; ++i) words += "w" + std::to_string(i % 97) + " ";
  hs::ModelRequest req;
  req.sentence = words;
  req.attention.d_model = 16;
  req.attention.n_heads = 4;
  const auto d = compute_derived(req, 1);
  RegionMaps maps;
  const RegionRequest ask{d->analysis, 0, 1, {1000, 1030, 990, 1020}, 256};
  const auto first = shown_region(&maps, ask, state.commands);
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(state.commands.has<ComputeRegion>());
  StatusInfo status;
  CommandTargets targets;
  targets.regions = &maps;
  run_commands(state, status, targets);
  maps.wait_idle();
  const auto second = shown_region(&maps, ask, state.commands);
  EXPECT_TRUE(state.commands.empty());
  EXPECT_TRUE(second->exact);
  EXPECT_EQ(second->factor, 1);
  EXPECT_EQ(second->cells.rows(), 30);
  EXPECT_FLOAT_EQ(second->cells(5, 7), d->run().exact->row(0, 1, 1005)[997]);
}

// Long inputs: hover names the block's first and last tokens, its strongest cell and the text around.
TEST_F(Explore, LongInputHoverNamesTokens) {
  AppState state = long_state();
  set_model(state);
  const hs::RunAnalysis& a = *derived_->analysis;
  const std::string t = cell_text(a, 400, 300, 0.5f, "weight", 0, 1);
  EXPECT_NE(t.find("queries 1200-1202 (\"w36\" \xE2\x80\xA6 \"w38\")"), std::string::npos) << t;
  EXPECT_NE(t.find("keys 900-902"), std::string::npos) << t;
  EXPECT_NE(t.find(" at query 12"), std::string::npos) << t;
  EXPECT_NE(t.find("[w36 w37 w38]"), std::string::npos) << t;
  EXPECT_NE(t.find("\xE2\x80\xA6w30 w31"), std::string::npos) << "the text before the block: " << t;
  // Without a head (the grid, the difference map) no strongest cell, still the tokens.
  EXPECT_EQ(cell_text(a, 400, 300, 0.5f).find(" at query"), std::string::npos);
}

// At 42 tokens a grid tile still shows thinned labels (every n-th) instead of none.
TEST_F(Explore, CrowdedLabelsThinInsteadOfVanishing) {
  hs::Map map = hs::Map::Constant(42, 42, 1.0f / 42);
  std::vector<std::string> labels;
  for (int i = 0; i < 42; ++i) labels.push_back("tok" + std::to_string(i));
  HeatmapSpec spec = heatmap_spec("t", 1, map, hs::ScaleRange{}, hs::Colormap::viridis);
  spec.row_labels = spec.col_labels = &labels;
  ImGui::NewFrame();
  const HeatmapLayout L = layout_heatmap(spec, ImVec2(300, 300), ImGui::GetFont(), ImGui::GetFontSize());
  EXPECT_GT(L.label_size, 0.0f) << "labels kept";
  EXPECT_GE(L.label_step, 2) << "every n-th label";
  EXPECT_GE(L.cell * 42, 180.0f) << "the map keeps most of the box";
  // A small overview tile keeps its map and drops the labels.
  const HeatmapLayout tiny = layout_heatmap(spec, ImVec2(60, 60), ImGui::GetFont(), ImGui::GetFontSize());
  EXPECT_EQ(tiny.label_size, 0.0f);
  ImGui::EndFrame();
}

// The chip bar scrolls to the token a map hovers.
TEST_F(Explore, TokenChipsScrollToTheHoveredToken) {
  AppState state = long_state();
  set_model(state);
  frame(state);
  const auto chips_scroll = [] {
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (std::string(w->Name).find("##chips") != std::string::npos) return w->Scroll.x;
    return -1.0f;
  };
  EXPECT_EQ(chips_scroll(), 0.0f);
  state.sentence.hovered_query = 2000;
  frame(state);
  frame(state);
  EXPECT_GT(chips_scroll(), 1000.0f);
}

TEST_F(Explore, UndoAndRedoSettingsAndEdits) {
  AppState state = default_app_state();
  set_model(state);
  frame(state);
  state.request.sentence = "the cat sat";
  frame(state);
  state.head = 2;
  state.scale.mode = hs::ScaleMode::log;
  frame(state);
  press(state, 'Z', true);
  EXPECT_EQ(state.head, 0);
  EXPECT_EQ(state.scale.mode, hs::ScaleMode::linear);
  EXPECT_EQ(state.request.sentence, "the cat sat");
  press(state, 'Z', true);
  EXPECT_EQ(state.request.sentence, default_app_state().request.sentence);
  press(state, 'Z', true, true);  // Ctrl+Shift+Z
  EXPECT_EQ(state.request.sentence, "the cat sat");
  press(state, 'Y', true);  // Ctrl+Y
  EXPECT_EQ(state.head, 2);
  // A new change drops the redo entries.
  press(state, 'Z', true);
  state.grid.all_layers = true;
  frame(state);
  EXPECT_FALSE(can_redo(state));
  // In the text box Ctrl+Z is the box's own: the settings stay.
  press(state, 'L', true);  // Ctrl+L focuses the sentence
  frame(state);
  ASSERT_TRUE(ImGui::GetIO().WantTextInput);
  const int index = state.undo.index;
  press(state, 'Z', true);
  EXPECT_EQ(state.undo.index, index);
}

TEST_F(Explore, EnterOpensTheHeadAndShortcutsOpenDialogs) {
  AppState state = default_app_state();
  set_model(state);
  frame(state);
  state.head = 3;
  press(state, kEnter);
  EXPECT_EQ(state.view, View::head);
  EXPECT_EQ(state.head, 3);
  press(state, 'O', true);
  EXPECT_EQ(state.session.dialog, SessionDialog::open);
  state.session.dialog = SessionDialog::none;
  press(state, 'S', true);
  EXPECT_EQ(state.session.dialog, SessionDialog::save);
  state.session.dialog = SessionDialog::none;
  frame(state);
  press(state, 'E', true);
  EXPECT_TRUE(state.exporter.dialog_open) << "Ctrl+E opened the Export dialog";
  state.exporter.dialog_open = false;
  // Tab hands the arrows to ImGui's navigation; Escape gives them back.
  ImGui::GetCurrentContext()->OpenPopupStack.clear();
  press(state, kTab);
  EXPECT_TRUE(state.keyboard_nav);
  const int head = state.head;
  press(state, 262);
  EXPECT_EQ(state.head, head) << "the arrow moved ImGui's focus, not the head";
  press(state, kEscape);
  EXPECT_FALSE(state.keyboard_nav);
  press(state, 263);
  EXPECT_EQ(state.head, head - 1);
}

TEST_F(Explore, UiScaleStepsAndIsRemembered) {
  AppState state = default_app_state();
  set_model(state);
  frame(state);
  press(state, '=', true);
  EXPECT_FLOAT_EQ(state.ui_scale, 1.1f);
  press(state, '=', true);
  press(state, '-', true);
  EXPECT_FLOAT_EQ(state.ui_scale, 1.1f);
  for (int i = 0; i < 30; ++i) step_ui_scale(state, -1);
  EXPECT_FLOAT_EQ(state.ui_scale, kMinUiScale);
  press(state, '0', true);
  EXPECT_FLOAT_EQ(state.ui_scale, 1.0f);
  EXPECT_FALSE(state.show_frame_time) << "ms / frame is off by default";
  state.ui_scale = 1.3f;
  state.show_frame_time = true;
  state.exporter.font = "DejaVu Serif";  // export_font: the exported figures' family, set once
  EXPECT_EQ(state.space_mark, hs::SpaceMark::dot) << "spaces as thin dots by default";
  state.space_mark = hs::SpaceMark::none;  // View menu: no space mark (issue 36), remembered
  register_settings(&state);
  ImGui::MarkIniSettingsDirty();
  const std::string ini = ImGui::SaveIniSettingsToMemory();
  ImGui::DestroyContext();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  AppState loaded = default_app_state();
  register_settings(&loaded);
  ImGui::LoadIniSettingsFromMemory(ini.c_str(), ini.size());
  EXPECT_FLOAT_EQ(loaded.ui_scale, 1.3f);
  EXPECT_TRUE(loaded.show_frame_time);
  EXPECT_EQ(loaded.exporter.font, "DejaVu Serif");
  EXPECT_EQ(loaded.space_mark, hs::SpaceMark::none);
}

}  // namespace
