// Issue 44's silent states, headless (part of panels_test): what the app could not show, or
// changed, it says where it shows it. A layer or head out of the model's range is shown as the
// nearest one with a note in the status line (the CLI refuses it with the same words), never
// clamped silently; a heads grid with no room for its maps says why on the tab; the model
// panel's numbers are never those of an impossible shape; the overview's key/value labels keep
// off the head names. Texts are read back from the draw lists (app/gui/widgets/drawn_text.h).
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "app/gui/actions/session_bridge.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/selection.h"
#include "app/gui/widgets/drawn_text.h"
#include "app/gui/work/compute.h"
#include "core/formats/safetensors.h"
#include "headless_app.h"

namespace {

using namespace hs::gui;

class SilentStates : public hs::gui::test::HeadlessApp {
 protected:
  explicit SilentStates(ImVec2 display = ImVec2(1280, 720)) : HeadlessApp(display) {}

  void compute(AppState& state) {
    derived_ = compute_derived(state.request, 1);
    ui_.derived = derived_.get();
  }
  void frames(AppState& state, int n = 3) {
    for (int i = 0; i < n; ++i) frame(state);
    last_ = collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
  }
  // The first text in a window whose name starts with `window` that holds `s`.
  const DrawnText* find_text(const std::string& s, const std::string& window = "") const {
    for (const DrawnText& t : last_)
      if (t.text.find(s) != std::string::npos && t.window.rfind(window, 0) == 0) return &t;
    return nullptr;
  }
  std::string dump(const std::string& window) const {
    std::string out;
    for (const DrawnText& t : last_)
      if (t.window.rfind(window, 0) == 0) out += "\n  \"" + t.text + "\" in " + t.window;
    return out;
  }

  std::shared_ptr<Derived> derived_;
  std::vector<DrawnText> last_;
};

// On main, `headscope --model stories260K --layer 9 --head 20` opened layer 4, head 7 and said
// nothing (the CLI refuses both). The first result of the model now shows the nearest layer and
// head and the status line says what was asked and what is shown; it goes once the selection moves.
TEST_F(SilentStates, ALayerOrHeadOutOfRangeIsSaidNotClampedSilently) {
  AppState state = default_app_state();
  state.request.model_path = "stories260K";
  state.request.sentence = "Lily saw a big dog.";
  state.layer = 9, state.head = 20;
  state.wanted_selection = WantedSelection{9, 20, true};  // as initial_state sets it from --layer and --head
  compute(state);
  frames(state);
  EXPECT_EQ(state.layer, 4);
  EXPECT_EQ(state.head, 7);
  const std::string want = "--layer 9 is out of range: stories260K has 5 layers (valid: 0 to 4); showing layer 4; --head 20 "
                           "is out of range: each layer has 8 heads (valid: 0 to 7); showing head 7";
  EXPECT_EQ(state.selection_note.text, want);
  EXPECT_NE(find_text("--layer 9 is out of range", "##status"), nullptr) << dump("##status");
  state.layer = 2;  // the user moves on
  frames(state);
  EXPECT_TRUE(state.selection_note.text.empty());
  EXPECT_EQ(find_text("out of range", "##status"), nullptr) << dump("##status");
}

// A session's layer and head: the same note, naming them as the file does (no flags).
TEST_F(SilentStates, ASessionsLayerOutOfRangeIsSaidToo) {
  AppState state = default_app_state();
  hs::Session s = session_from_state(state);
  s.view.layer = 3;  // the default model has one layer
  apply_session(state, s);
  compute(state);
  frames(state);
  EXPECT_EQ(state.layer, 0);
  EXPECT_EQ(state.selection_note.text.rfind("layer 3 is out of range: ", 0), 0u) << state.selection_note.text;
}

// On main, --d-model 1024 --heads 1024 showed an empty Heads tab and a colour bar, no message.
TEST_F(SilentStates, AHeadsGridWithoutRoomSaysWhyOnTheTab) {
  AppState state = default_app_state();
  state.request.attention.d_model = 1024;
  state.request.attention.n_heads = 1024;
  compute(state);
  request_view(state, hs::View::heads);
  frames(state);
  EXPECT_NE(find_text("1024 heads of", "##views"), nullptr) << dump("##views");
}

// On main, --heads 1000 (d_model 8) showed its error in the status line while the model panel
// said "head width 0" and "parameters 8": numbers of a model that cannot exist.
TEST_F(SilentStates, AnImpossibleShapeShowsNoNumbers) {
  AppState state = default_app_state();
  compute(state);  // the last good result stays on screen
  state.request.attention.n_heads = 1000;
  frames(state);
  EXPECT_NE(find_text("no numbers for this shape: heads (1000)", "##model"), nullptr) << dump("##model");  // wraps before "must divide"
  EXPECT_EQ(find_text("4 d\xC2\xB2 + 4 d", "##model"), nullptr) << dump("##model");
  for (const DrawnText& t : last_) {
    if (t.window.rfind("##model", 0) == 0) {
      EXPECT_NE(t.text, "0") << "a head width of 0" << dump("##model");
    }
  }
}

class SilentStatesFullHd : public SilentStates {
 protected:
  SilentStatesFullHd() : SilentStates(ImVec2(1920, 1080)) {}
};

// On main, the layers x heads overview of a Qwen2.5-0.5B-shaped model (24 layers, 14 query heads
// on 2 key/value heads) at 1920x1080 wrote "h0  kv 0" over the names of heads 1 and 2. The kv
// labels now have a line of their own: no header text overlaps another.
TEST_F(SilentStatesFullHd, OverviewKeyValueLabelsKeepOffTheHeadNames) {
  constexpr int kLayers = 24, kHeads = 14, T = 4;
  std::vector<float> maps(size_t(kLayers) * kHeads * T * T, 1.0f / T);
  const std::string path =
      (std::filesystem::temp_directory_path() / ("hs-kv-overview-" + std::to_string(::getpid()) + ".safetensors")).string();
  hs::write_safetensors(path, {{"attention", {{kLayers, kHeads, T, T}, maps}}});
  AppState state = default_app_state();
  state.request = hs::ModelRequest{};
  state.request.attention_file = path;
  compute(state);
  auto grouped = std::make_shared<hs::RunAnalysis>(*derived_->analysis);
  grouped->run.info.n_kv_heads = 2;  // as Qwen2.5-0.5B: 7 query heads on each key/value head
  derived_->analysis = grouped;
  request_view(state, hs::View::overview);
  frames(state);
  std::filesystem::remove(path);
  float top = 1e9f;  // the overview's first row of maps
  for (const DrawnHeatmap& h : report_.heatmaps)
    if (h.key.rfind("overview", 0) == 0) top = std::min(top, h.min.y);
  ASSERT_LT(top, 1e9f) << "no overview drawn";
  std::vector<const DrawnText*> header;
  for (const DrawnText& t : last_)
    if (t.window.rfind("##views", 0) == 0 && t.max.y <= top && t.min.y >= top - 80) header.push_back(&t);
  ASSERT_NE(find_text("kv 0", "##views"), nullptr) << dump("##views");
  ASSERT_NE(find_text("kv 1", "##views"), nullptr) << dump("##views");
  for (const DrawnText* a : header) {
    if (a->text.find("kv") != std::string::npos) {
      EXPECT_EQ(a->text.find('h'), std::string::npos) << "\"" << a->text << "\"";
    }
    for (const DrawnText* b : header) {
      if (a >= b) continue;
      const bool apart = a->max.x <= b->min.x || b->max.x <= a->min.x || a->max.y <= b->min.y || b->max.y <= a->min.y;
      EXPECT_TRUE(apart) << "\"" << a->text << "\" overlaps \"" << b->text << "\"";
    }
  }
}

}  // namespace
