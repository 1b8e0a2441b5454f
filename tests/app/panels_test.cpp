// Every panel driven headless (ImGui context, no renderer, as imgui's example_null): every view,
// every head count and key/value group count for several d_model values, mouse sweeps that
// hover and click all over the window. Nothing may assert or crash.
#include <gtest/gtest.h>
#include <imgui.h>

#include "headless_app.h"
#include "app/gui/state/derived.h"
#include "app/gui/work/compute.h"
#include "core/analysis/long_input.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
#include "core/export/export.h"
#include "core/util/errors.h"

namespace {

using namespace hs::gui;
using hs::View;

class Headless : public hs::gui::test::HeadlessApp {
 protected:
  void SetUp() override {
    HeadlessApp::SetUp();
    ui_.examples = &examples_;
  }

  void set_model(AppState& state) {
    derived_ = compute_derived(state.request, 1);
    derived_->sweep = hs::analyse_sweep(state.request, derived_->run().tokens);
    ui_.derived = derived_.get();
  }

  // Every view of the registry (core/export/view_registry.h): each tab, then each part of a tab
  // (shown in its tab), the parts' settings put back after.
  void every_view(AppState& state) {
    const AppState before = state;
    for (const hs::ViewDescriptor& v : hs::all_views()) {
      request_view(state, v.view);
      frame(state);
      frame(state);
    }
    state.grid.all_layers = before.grid.all_layers;
    state.average.rollout = before.average.rollout;
  }

  // Hover and click on a grid of points over the whole window, in the current view.
  void mouse_sweep(AppState& state, int steps) {
    for (int y = 0; y < steps; ++y)
      for (int x = 0; x < steps; ++x) {
        const ImVec2 p(1600.0f * (x + 0.5f) / steps, 1000.0f * (y + 0.5f) / steps);
        frame(state, p, false);
        frame(state, p, true);
        frame(state, p, false);
        ImGui::GetIO().KeyCtrl = false;
        if (!same_model_request(state.request, derived_->analysis->request)) {
          try {
            set_model(state);
          } catch (const hs::Error&) {
            state.request = derived_->analysis->request;  // the app would show the error and keep the last result
          }
        }
      }
  }

  std::vector<std::string> examples_ = {"the cat sat", "Zoë's café — Москва"};
  std::shared_ptr<hs::gui::Derived> derived_;
};

TEST_F(Headless, NoResultYetShowsEveryView) {
  AppState state = default_app_state();
  ui_.status.computing = true;
  every_view(state);
  ui_.status.error = "heads (3) must divide d_model (8)";
  every_view(state);
}

TEST_F(Headless, EveryHeadCountAndGroupCount) {
  for (int d_model : {1, 6, 8, 12}) {
    for (int heads : head_count_options(d_model)) {
      for (int groups : kv_group_options(heads)) {
        AppState state = default_app_state();
        state.request.attention.d_model = d_model;
        state.request.attention.n_heads = heads;
        state.request.attention.n_kv_heads = groups;
        state.request.attention.causal = (heads + groups) % 2 == 0;
        set_model(state);
        state.head = heads - 1;
        every_view(state);
        ASSERT_EQ(derived_->run().n_heads(), heads);
        EXPECT_EQ(derived_->run().info.param_count, hs::attention_param_count(state.request.attention));
      }
    }
  }
}

TEST_F(Headless, ScalesColoursAndOptions) {
  AppState state = default_app_state();
  set_model(state);
  for (hs::ScaleMode mode : {hs::ScaleMode::linear, hs::ScaleMode::log, hs::ScaleMode::row_normalised})
    for (bool skip : {false, true})
      for (hs::Colormap c : {hs::Colormap::viridis, hs::Colormap::magma, hs::Colormap::gray}) {
        state.scale = {mode, skip, c};
        state.head_view.show_values = skip;
        every_view(state);
      }
  state.query.queries = {0, 3, 5};
  every_view(state);
  state.width.log_singular_values = false;
  state.grid.all_layers = true;
  every_view(state);
}

TEST_F(Headless, MouseEverywhereInEveryView) {
  AppState state = default_app_state();
  state.request.attention.n_heads = 8;
  state.request.attention.n_kv_heads = 2;
  set_model(state);
  for (View v : hs::tab_views()) {  // every tab of the view registry
    request_view(state, v);
    mouse_sweep(state, 9);
  }
}

TEST_F(Headless, DecoupledWidthWindowAndLongSentence) {
  AppState state = default_app_state();
  set_decoupled(state.request.attention, true);
  set_heads(state.request.attention, 5);
  state.request.attention.d_head = 3;
  state.request.attention.window = 2;
  state.request.sentence = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                           "sixteen seventeen eighteen nineteen twenty twenty-one twenty-two twenty-three twenty-four "
                           "twenty-five twenty-six twenty-seven twenty-eight twenty-nine thirty";
  set_model(state);
  EXPECT_EQ(derived_->run().n_heads(), 5);
  every_view(state);
  request_view(state, View::heads);
  mouse_sweep(state, 5);
}

// Past hs::kLongInputTokens the app runs in long-input mode: block-maxed maps with block labels, exact
// query rows, export of block maxima. Every view and a mouse sweep must work on it.
TEST_F(Headless, LongInputModeInEveryView) {
  AppState state = default_app_state();
  std::string words;
  for (int i = 0; i < hs::kLongInputTokens + 100; ++i) words += "w" + std::to_string(i % 97) + " ";
  state.request.sentence = words;
  state.request.attention.d_model = 16;
  set_heads(state.request.attention, 4);
  state.request.attention.causal = true;
  set_model(state);
  const hs::AttentionRun& run = derived_->run();
  ASSERT_TRUE(run.compact());
  EXPECT_EQ(run.n_tokens(), hs::kLongInputTokens + 100);
  EXPECT_EQ(run.map_factor, 3);  // 2148 tokens into at most 1024 cells
  ASSERT_EQ(derived_->analysis->map_labels.size(), size_t(run.attention[0][0].rows()));
  EXPECT_EQ(derived_->analysis->map_labels[1], "3-5");
  EXPECT_FALSE(derived_->analysis->long_input_note.empty());
  state.query.queries = {2000};
  every_view(state);
  for (View v : {View::heads, View::head, View::query}) {
    request_view(state, v);
    mouse_sweep(state, 4);
  }
  // Export: the maps as their block maxima, labelled (core/export/block_maxima_export.h); views that
  // need whole maps say so.
  hs::ExportSpec spec;
  spec.path = "maps.csv";
  EXPECT_EQ(hs::export_bytes(*derived_->analysis, nullptr, spec).rfind("# block maximum of 3 x 3 cells", 0), 0u);
  spec.view = hs::View::difference;
  try {
    hs::export_bytes(*derived_->analysis, nullptr, spec);
    ADD_FAILURE() << "export of a long-input run's difference table did not throw";
  } catch (const hs::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("long-input mode"), std::string::npos) << e.what();
  }
}

TEST_F(Headless, ArrowsMoveTheHeadAndQueryCtrlLFocusesTheSentence) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyMap[ImGuiKey_LeftArrow] = 263, io.KeyMap[ImGuiKey_RightArrow] = 262;
  io.KeyMap[ImGuiKey_UpArrow] = 265, io.KeyMap[ImGuiKey_DownArrow] = 264;
  AppState state = default_app_state();
  set_model(state);
  request_view(state, View::head);
  frame(state);
  const auto press = [&](int key, bool ctrl = false) {
    io.KeyCtrl = ctrl;
    io.KeysDown[key] = true;
    frame(state);
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    frame(state);
  };
  EXPECT_EQ(state.head, 0);
  press(262);
  EXPECT_EQ(state.head, 1);
  press(263);
  press(263);
  EXPECT_EQ(state.head, 0) << "clamped at the first head";
  request_view(state, View::query);
  frame(state);
  // The query view opens on the last token (token 0 of a causal model only sees itself).
  const int last = derived_->run().n_tokens() - 1;
  EXPECT_EQ(shown_queries(state, last + 1), std::vector<int>{last});
  press(263);
  ASSERT_EQ(state.query.queries.size(), 1u);
  EXPECT_EQ(state.query.queries[0], last - 1);
  // The choice stays when the sentence grows.
  state.request.sentence += " again";
  set_model(state);
  frame(state);
  EXPECT_EQ(shown_queries(state, derived_->run().n_tokens()), std::vector<int>{last - 1});
  press('L', true);
  frame(state);
  EXPECT_TRUE(io.WantTextInput) << "Ctrl+L focuses the sentence box";
}

// Head roles: a click on a cell of a role's layers x heads heatmap opens that head's map.
TEST_F(Headless, ClickingARoleCellOpensThatHead) {
  AppState state = default_app_state();
  state.request.attention.n_heads = 4;
  state.request.attention.causal = true;
  set_model(state);
  request_view(state, View::roles);
  frame(state);
  frame(state);
  const DrawnHeatmap* previous = nullptr;
  for (const DrawnHeatmap& h : report_.heatmaps)
    if (h.key == "role previous") previous = &h;
  ASSERT_NE(previous, nullptr) << "the previous-token heatmap is drawn";
  ASSERT_EQ(previous->rows, 1) << "one layer";
  ASSERT_EQ(previous->cols, 4) << "four heads";
  // The centre of cell (layer 0, head 2).
  const ImVec2 cell((previous->min.x + (previous->max.x - previous->min.x) * 2.5f / 4.0f),
                    (previous->min.y + previous->max.y) * 0.5f);
  frame(state, cell, false);
  frame(state, cell, true);
  frame(state, cell, false);
  frame(state);
  EXPECT_EQ(state.view, View::head);
  EXPECT_EQ(state.layer, 0);
  EXPECT_EQ(state.head, 2);
}

TEST_F(Headless, TinyWindow) {
  ImGui::GetIO().DisplaySize = ImVec2(320, 240);
  AppState state = default_app_state();
  set_model(state);
  every_view(state);
}

}  // namespace
