// What a view shows agrees with what the user did (driven headless): a drag that pans a zoomed
// map keeps the selected query, another head opens on its whole map, a zoomed region can take
// its own colour range, Ctrl+S always saves, and maps never share a texture version by arithmetic.
#include <gtest/gtest.h>
#include <imgui.h>

#include <filesystem>
#include <string>

#include "app/gui/work/run_commands.h"
#include "app/gui/actions/session_bridge.h"
#include "core/util/errors.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/map_zoom.h"
#include "app/gui/work/compute.h"
#include "headless_app.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

class ViewCoherence : public hs::gui::test::HeadlessApp {
 protected:
  void set_model(AppState& state) {
    derived_ = compute_derived(state.request, 1);
    ui_.derived = derived_.get();
  }
  void ctrl(AppState& state, int key) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeysDown[key] = true;
    frame(state);
    io.KeysDown[key] = false;
    frame(state);
    io.KeyCtrl = false;
  }
  AppState zoomed_head() {
    AppState state = default_app_state();
    state.request.sentence = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    state.request.attention.causal = true;
    set_model(state);
    request_view(state, View::head);
    state.head_view.zoom = MapZoom{0.25f, 0.25f, 0.5f};
    frame(state);
    frame(state);
    return state;
  }
  std::shared_ptr<Derived> derived_;
};

TEST_F(ViewCoherence, DragPanKeepsTheSelectedQuery) {
  AppState state = zoomed_head();
  state.query.queries = {8};
  const DrawnHeatmap* h = drawn("head view");
  ASSERT_NE(h, nullptr);
  const ImVec2 c = centre(*h);
  const float w = h->max.x - h->min.x;
  frame(state, c, false);
  frame(state, c, true);
  for (int i = 1; i <= 5; ++i) frame(state, ImVec2(c.x - w * 0.04f * float(i), c.y - w * 0.04f * float(i)), true);
  frame(state, ImVec2(c.x - w * 0.2f, c.y - w * 0.2f), false);
  EXPECT_GT(state.head_view.zoom.x0, 0.3f) << "the drag panned";
  ASSERT_EQ(state.query.queries.size(), 1u);
  EXPECT_EQ(state.query.queries[0], 8) << "a drag does not choose a query";
  // A click that does not move chooses the query under the pointer, on release.
  for (int i = 0; i < 10; ++i) frame(state);
  h = drawn("head view");
  ASSERT_NE(h, nullptr);
  const ImVec2 top(h->min.x + 3, h->min.y + 3);
  frame(state, top, true);
  frame(state, top, false);
  ASSERT_EQ(state.query.queries.size(), 1u);
  EXPECT_NE(state.query.queries[0], 8) << "a click chose the top row's query";
}

TEST_F(ViewCoherence, AnotherHeadOpensOnItsWholeMap) {
  AppState state = zoomed_head();
  EXPECT_TRUE(state.head_view.zoom.zoomed());
  state.head = 1;
  frame(state);
  frame(state);
  EXPECT_FALSE(state.head_view.zoom.zoomed()) << "head 1 opened with head 0's zoom";
  const DrawnHeatmap* h = drawn("head view");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->rows, derived_->run().n_tokens());
}

TEST_F(ViewCoherence, ZoomedRegionCanTakeItsOwnRange) {
  AppState state = zoomed_head();
  const DrawnHeatmap* h = drawn("head view");
  ASSERT_NE(h, nullptr);
  const float whole = h->range.hi;
  state.head_view.region_range = true;
  frame(state);
  h = drawn("head view");
  ASSERT_NE(h, nullptr);
  const hs::TokenRegion r = zoom_region(state.head_view.zoom, derived_->run().n_tokens());
  const hs::Map& map = derived_->run().attention[0][0];
  float region_max = 0;
  for (int i = r.row0; i < r.row1; ++i)
    for (int j = r.col0; j < r.col1; ++j) region_max = std::max(region_max, map(i, j));
  EXPECT_FLOAT_EQ(h->range.hi, region_max);
  EXPECT_LE(h->range.hi, whole);
  // Its mask moved with it: the region's cell (0, 0) is the map's (row0, col0).
  EXPECT_TRUE(h->mask.causal);
  EXPECT_EQ(h->mask.row0, r.row0);
  EXPECT_EQ(h->mask.col0, r.col0);
}

// Ctrl+S from the sentence box too; once the session has a file it saves there without asking.
TEST_F(ViewCoherence, CtrlSAlwaysSaves) {
  AppState state = default_app_state();
  set_model(state);
  frame(state);
  ctrl(state, 'L');  // Ctrl+L focuses the sentence
  frame(state);
  ASSERT_TRUE(ImGui::GetIO().WantTextInput) << "the sentence box has the keyboard";
  ctrl(state, 'S');
  EXPECT_EQ(state.session.dialog, SessionDialog::save) << "no file yet: Ctrl+S asks for a name";
  state.session.dialog = SessionDialog::none;
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "out";
  fs::create_directories(dir);
  const fs::path file = dir / "ctrl_s_session.json";
  fs::remove(file);
  state.session.folder = dir.string(), state.session.file_name = file.filename().string();
  state.commands.push(SaveSession{});
  StatusInfo status;
  run_commands(state, status, {});
  ASSERT_TRUE(fs::exists(file)) << status.last_export;
  EXPECT_TRUE(state.session.named);
  fs::remove(file);
  // No unsaved changes, and Ctrl+S still writes the file.
  ctrl(state, 'S');
  EXPECT_EQ(state.session.dialog, SessionDialog::none);
  run_commands(state, status, {});
  EXPECT_TRUE(fs::exists(file)) << "Ctrl+S saved again to " << file;
}

TEST(MapVersion, FieldsNeverCollide) {
  EXPECT_NE(map_version(7, 0, 64), map_version(7, 1, 0)) << "layer 0 head 64 vs layer 1 head 0";
  EXPECT_NE(map_version(7, 0, 1, 2), map_version(7, 0, 2, 1));
  MapVersion region = map_version(7, 0, 1);
  region.row0 = 4;
  EXPECT_NE(region, map_version(7, 0, 1));
  EXPECT_EQ(map_version(7, 3, 5), map_version(7, 3, 5));
}

}  // namespace

namespace {

// The app adds a draw function per tab of the view registry and none for a part of a tab (its tab
// draws it): a tab without a panel, or a part with one, is a row forgotten in view_panels.cpp.
TEST(ViewPanels, EveryTabHasItsPanelAndNoPartHasOne) {
  for (const hs::ViewDescriptor& v : hs::all_views())
    EXPECT_EQ(view_panel(v.view) != nullptr, hs::is_tab(v.view)) << v.name;
}

// Lesson locks are typed: every tab of the view registry has its control, "tab:" and the view's
// --view name in lesson files, and every name a lesson may list is one control.
TEST(LessonControls, EveryTabHasItsTypedControl) {
  const auto& names = hs::lesson_controls();
  for (View v : hs::tab_views())
    EXPECT_NE(std::find(names.begin(), names.end(), std::string("tab:") + hs::view_name(v)), names.end()) << hs::view_name(v);
  for (int i = 0; i <= int(hs::LessonControl::colormap); ++i)
    EXPECT_EQ(names[size_t(i)], hs::lesson_control_name(hs::LessonControl(i)));
  EXPECT_EQ(names.size(), size_t(hs::LessonControl::colormap) + 1 + hs::tab_views().size());
  EXPECT_THROW(hs::parse_lesson(R"({"format": "headscope-lesson", "version": 1, "title": "t", "steps": [
      {"title": "a", "caption": "b", "unlocked": ["colour_scale"]}]})", "t.json"), hs::FormatError)
      << "a misspelt control in a lesson file is refused when it loads";
}

}  // namespace
