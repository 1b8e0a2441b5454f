// Issue 35's explorer details, headless (part of panels_test): toolbars and hints that wrap
// instead of running off their panel at 1280x720 in every view, one layer control whose value
// reads as text, and the Open session dialog's list of the folder's session files (read back
// from the draw lists, app/gui/widgets/drawn_text.h).
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <variant>
#include <vector>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/panels/lesson_check.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/examples.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/drawn_text.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/run_commands.h"
#include "core/model/teaching_model.h"
#include "core/analysis/sweep_analysis.h"
#include "headless_app.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

class ExplorerDetails : public hs::gui::test::HeadlessApp {
 protected:
  ExplorerDetails() : HeadlessApp(ImVec2(1280, 720)) {}

  // The teaching model (2 layers of 4 heads, built in): the views have a layer to choose.
  void use_teaching_model(AppState& state) {
    state.request.model_path = "teaching";
    state.request.sentence = "the cat sat on the mat and the dog sat on the rug";
    state.contrast.sentence = "the cat sat on the mat and the dog ran on the rug";
    derived_ = compute_derived(state.request, 1);
    derived_->sweep = hs::analyse_sweep(state.request, derived_->run().tokens);
    derived_->contrast = compute_contrast(state.request, state.contrast.sentence, *derived_->analysis, 1);
    ui_.derived = derived_.get();
  }

  std::vector<DrawnText> texts() const { return collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts); }
  // The first text that starts with `s` (items on one line read back as one text) in a window
  // whose name starts with `window_prefix`.
  const DrawnText* find_text(const std::string& s, const std::string& window_prefix = "") const {
    for (const DrawnText& t : last_)
      if (t.text.rfind(s, 0) == 0 && t.window.rfind(window_prefix, 0) == 0) return &t;
    return nullptr;
  }
  void frames(AppState& state, int n = 3, ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false) {
    for (int i = 0; i < n; ++i) frame(state, mouse, down);
    last_ = texts();
  }
  // A click at the middle of `t`: pressed one frame, released the next.
  void click(AppState& state, const DrawnText& t) {
    const ImVec2 at((t.min.x + t.max.x) * 0.5f, (t.min.y + t.max.y) * 0.5f);
    frame(state, at, false);
    frame(state, at, true);
    frames(state, 2, at, false);  // the frame after the release draws what it changed
  }

  std::string dump(const std::string& window_prefix) const {
    std::string out;
    for (const DrawnText& t : last_) if (t.window.rfind(window_prefix, 0) == 0) out += "\n  \"" + t.text + "\" in " + t.window;
    return out;
  }

  std::shared_ptr<Derived> derived_;
  std::vector<DrawnText> last_;
};

// Finding 8: at 1280x720 no text of a view (its toolbar, hints, headers) is cut by its window
// or panel; toolbars take a second line instead. On main the Heads toolbar ended "range p",
// "order: model clu..." ran off the panel, the difference hint and others were cut mid-word.
TEST_F(ExplorerDetails, ToolbarsAndHintsWrapAt1280x720InEveryView) {
  AppState state = default_app_state();
  use_teaching_model(state);
  for (const View tab : hs::tab_views()) {
    const hs::ViewDescriptor& v = hs::view_descriptor(tab);
    request_view(state, v.view);
    frames(state);
    ASSERT_EQ(state.view, v.view);
    for (const DrawnText& t : last_) {
      if (t.window.rfind("##views", 0) != 0) continue;  // the views' window and its children
      // A first glyph's negative bearing at the panel's left edge (a "T" reaches 0.75 px past it) is not a cut text.
      const bool bearing = t.min.x >= t.clip_min.x - 1.0f && t.min.x < t.clip_min.x && t.max.x <= t.clip_max.x - 1.0f &&
                           t.min.y >= t.clip_min.y && t.max.y <= t.clip_max.y;
      EXPECT_FALSE(t.clipped && !bearing) << v.title << ": \"" << t.text << "\" cut at [" << t.min.x << "," << t.min.y << " - " << t.max.x
                              << "," << t.max.y << "] by its clip [" << t.clip_min.x << "," << t.clip_min.y << " - "
                              << t.clip_max.x << "," << t.clip_max.y << "] in " << t.window;
    }
  }
}

// Finding 9: one layer control (the left column's), its value written out beside it, and the
// toolbars without a second "layer" box; - and + change the state's layer, as the arrows do.
TEST_F(ExplorerDetails, OneLayerControlShowsItsValue) {
  AppState state = default_app_state();
  use_teaching_model(state);
  for (View view : {View::heads, View::head, View::query, View::difference}) {
    request_view(state, view);
    frames(state);
    // A toolbar's layer box (an InputInt) ends in its label "layer" (read back alone, or after
    // its buttons "- +" when they share a run).
    for (const DrawnText& t : last_) {
      if (t.window.rfind("##views", 0) != 0) continue;
      const bool label = t.text == "layer" || t.text.find("+ layer") != std::string::npos ||
                         (t.text.size() > 6 && t.text.compare(t.text.size() - 6, 6, " layer") == 0);
      EXPECT_FALSE(label) << hs::view_descriptor(view).title << ": a second layer control \"" << t.text << "\" in " << t.window;
    }
    EXPECT_NE(find_text("layer 0 of 2", "##model"), nullptr) << hs::view_descriptor(view).title << dump("##model");
  }
  request_view(state, View::heads);
  frames(state);
  const DrawnText* plus = find_text("+", "##model");
  ASSERT_NE(plus, nullptr);
  click(state, *plus);
  EXPECT_EQ(state.layer, 1);
  EXPECT_NE(find_text("layer 1 of 2", "##model"), nullptr) << "the text follows the control";
  bool grid_on_layer_1 = false;
  for (const DrawnHeatmap& h : report_.heatmaps) grid_on_layer_1 = grid_on_layer_1 || h.key == "grid L1 h0";
  EXPECT_TRUE(grid_on_layer_1) << "the grid shows the layer chosen";
  const DrawnText* minus = find_text("-", "##model");
  ASSERT_NE(minus, nullptr);
  click(state, *minus);
  EXPECT_EQ(state.layer, 0);
}

// Finding 11: File > Open session lists the folder's session files (not its other JSON) and the
// recent sessions; a click opens one.
TEST_F(ExplorerDetails, OpenSessionListsTheFolderAndAClickOpensOne) {
  const fs::path dir = fs::temp_directory_path() / ("hs_session_list_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  AppState saved = default_app_state();
  saved.request.sentence = "the first saved sentence";
  hs::save_session((dir / "first.json").string(), session_from_state(saved));
  saved.request.sentence = "the second saved sentence";
  saved.head = 2;
  hs::save_session((dir / "second.json").string(), session_from_state(saved));
  { std::ofstream((dir / "other.json").string()) << "{\"not\": \"a session\"}"; }

  AppState state = default_app_state();
  use_teaching_model(state);
  state.session.folder = dir.string();
  state.session.dialog = SessionDialog::open;
  frames(state);
  EXPECT_NE(find_text("first.json", "Open session"), nullptr);
  const DrawnText* second = find_text("second.json", "Open session");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(find_text("other.json", "Open session"), nullptr) << "JSON that is not a session is not listed";

  click(state, *second);
  EXPECT_EQ(state.session.dialog, SessionDialog::none) << "a click opens it and closes the dialog";
  StatusInfo status;
  for (Command& c : state.commands.take())
    if (auto* open = std::get_if<OpenFiles>(&c)) open_files(state, open->paths, status);
  // A session replaces what is on screen after the unsaved guard (unsaved_guard.h) lets it through.
  for (const GuardedAction& a : take_ready_actions(state)) run_guarded(state, a, status);
  EXPECT_EQ(state.request.sentence, "the second saved sentence") << status.error;
  EXPECT_EQ(state.head, 2);

  // Reopened in another folder, the recent session is listed and opens.
  state.session.folder = (dir / "elsewhere").string();
  state.session.dialog = SessionDialog::open;
  frames(state);
  bool recent = false;
  for (const DrawnText& t : last_) recent = recent || t.text.rfind("second.json", 0) == 0;
  EXPECT_TRUE(recent) << "the recent session is listed";
  fs::remove_all(dir);
}

// The sidebar's texts whole at 1280x720 and 1920x1080: on main the model buttons ("teaching
// (built in)", "stories260K (shipped)") were small buttons without vertical padding, whose frame
// cut the descenders of "g" and "pp".
TEST_F(ExplorerDetails, SidebarTextIsWholeAt1280x720And1920x1080) {
  AppState state = default_app_state();
  use_teaching_model(state);
  for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1920, 1080)}) {
    ImGui::GetIO().DisplaySize = size;
    frames(state);
    const std::string what = std::to_string(int(size.x)) + "x" + std::to_string(int(size.y));
    EXPECT_NE(find_text("teaching (built in)", "##model"), nullptr) << what << dump("##model");
    // The sidebar scrolls: a row below its bottom edge is out of view, not cut.
    float bottom = 0;
    for (const DrawnText& t : last_)
      if (t.window.rfind("##model", 0) == 0) bottom = std::max(bottom, t.clip_max.y);
    int seen = 0;
    for (const DrawnText& t : last_) {
      if (t.window.rfind("##model", 0) != 0) continue;
      ++seen;
      const bool below = t.clip_max.y >= bottom - 0.5f && t.max.y > t.clip_max.y && t.min.x >= t.clip_min.x && t.max.x <= t.clip_max.x;
      EXPECT_FALSE(t.clipped && !below) << what << ": \"" << t.text << "\" cut at [" << t.min.x << "," << t.min.y << " - " << t.max.x << ","
                              << t.max.y << "] by its clip [" << t.clip_min.x << "," << t.clip_min.y << " - " << t.clip_max.x
                              << "," << t.clip_max.y << "] in " << t.window;
    }
    EXPECT_GT(seen, 5) << what;
  }
}

// Whether a text the last frames drew, in a window whose name starts with `window_prefix`,
// contains `part`.
bool drew_text_containing(const std::vector<DrawnText>& texts, const std::string& part, const std::string& window_prefix = "") {
  for (const DrawnText& t : texts)
    if (t.text.find(part) != std::string::npos && t.window.rfind(window_prefix, 0) == 0) return true;
  return false;
}

// The first screen (issue 46): the teaching model on the first example sentence, each head's job
// on its tile, no random-weights banner, and "Start lesson 1" starts lesson 1 at its first step.
// The synthetic layer (what a flag such as --seed asks for) keeps its banner.
TEST_F(ExplorerDetails, TheFirstScreenNamesEachHeadsJobAndStartsLessonOne) {
  AppState state = first_screen_state();
  ASSERT_EQ(state.request.model_path, "teaching");
  EXPECT_EQ(state.request.sentence, example_sentences().front());
  derived_ = compute_derived(state.request, 1);
  ui_.derived = derived_.get();
  frames(state);
  for (const std::string& job : hs::teaching_head_titles()[0])
    EXPECT_TRUE(drew_text_containing(last_, job, "##views")) << "no tile says '" << job << "'" << dump("##views");
  EXPECT_FALSE(drew_text_containing(last_, "Random weights")) << dump("##views");
  const DrawnText* start = find_text("Start lesson 1", "##views");
  ASSERT_NE(start, nullptr) << dump("##views");
  click(state, *start);
  StatusInfo status;
  run_commands(state, status, {derived_.get()});
  ASSERT_NE(state.lesson.lesson, nullptr) << "the button started no lesson";
  EXPECT_EQ(state.lesson.lesson->title, find_lesson("multi_head_attention")->title);
  EXPECT_EQ(state.lesson.step, 0);
  // In a lesson the tiles leave the naming to its captions.
  frames(state);
  EXPECT_FALSE(drew_text_containing(last_, "previous token", "##views")) << dump("##views");

  AppState random = default_app_state();
  derived_ = compute_derived(random.request, 1);
  ui_.derived = derived_.get();
  frames(random);
  EXPECT_TRUE(drew_text_containing(last_, "Random weights", "##views")) << dump("##views");
  EXPECT_EQ(find_text("Start lesson 1"), nullptr);
}

// A teacher's lesson is checked as it loads (issue 46): opened from File > Open lesson... (the
// Open box lists lesson files and starts one), the problems `headscope --check-lesson` prints for
// a Difference step (11 px labels), at the window's size, in the Lesson problems list and the
// status line. A shipped lesson is not reported.
TEST_F(ExplorerDetails, ALoadedLessonShowsItsCheckProblems) {
  const fs::path dir = fs::temp_directory_path() / ("hs_lesson_open_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream((dir / "mine.json").string()) << R"({"format": "headscope-lesson", "version": 1, "title": "Mine", "steps": [
    {"title": "1. Short", "caption": "Four heads.", "session": {"model": {"heads": 4}}},
    {"title": "2. Pairs", "caption": "Which heads look alike?",
     "session": {"model": {"heads": 4}, "view": {"panel": "difference"}}}]})";
  std::vector<std::shared_ptr<const hs::Lesson>> shipped;
  for (const std::string& name : shipped_lessons()) shipped.push_back(find_lesson(name));
  AppState state = default_app_state();
  use_teaching_model(state);
  state.session.folder = dir.string();
  state.session.dialog = SessionDialog::open;
  frames(state);
  const DrawnText* listed = find_text("mine.json", "Open session");
  ASSERT_NE(listed, nullptr) << dump("Open session");
  click(state, *listed);
  StatusInfo status;
  for (Command& c : state.commands.take())
    if (auto* open = std::get_if<OpenFiles>(&c)) open_files(state, open->paths, status);
  for (const GuardedAction& a : take_ready_actions(state)) run_guarded(state, a, status);
  ASSERT_NE(state.lesson.lesson, nullptr) << status.error;
  EXPECT_EQ(state.lesson.lesson->title, "Mine");
  check_loaded_lesson(state, &shipped, ImVec2(1280, 720));
  EXPECT_EQ(state.lesson.checked_at, "1280x720 dark");
  int small = 0;
  for (const std::string& p : state.lesson.problems) {
    if (p.find("small: ") == std::string::npos) continue;
    EXPECT_EQ(p.rfind("step 2 \"2. Pairs\" at 1280x720 dark: small: ", 0), 0u) << p;
    small += p.find("11.0px") != std::string::npos;
  }
  EXPECT_GT(small, 0) << "the difference step's 11 px labels";
  derived_ = compute_derived(state.request, 1);
  ui_.derived = derived_.get();
  frames(state);
  EXPECT_TRUE(drew_text_containing(last_, "step 2 \"2. Pairs\" at 1280x720 dark: small: ", "Lesson problems")) << dump("Lesson problems");
  EXPECT_TRUE(drew_text_containing(last_, "layout problems presenting at 1280x720 dark", "##status")) << dump("##status");
  // Checked once: stepping on keeps the list; presenting, the slide does not show it.
  go_to_step(state, 1);
  check_loaded_lesson(state, &shipped, ImVec2(1280, 720));
  EXPECT_FALSE(state.lesson.problems.empty());
  state.present.active = true;
  frames(state);
  EXPECT_FALSE(drew_text_containing(last_, "small: ")) << "a problem on the slide";
  state.present.active = false;
  // A shipped lesson: nothing to report.
  start_lesson(state, find_lesson("multi_head_attention"), 0);
  check_loaded_lesson(state, &shipped, ImVec2(1280, 720));
  EXPECT_EQ(state.lesson.checked, state.lesson.lesson);
  EXPECT_TRUE(state.lesson.problems.empty());
  fs::remove_all(dir);
}

}  // namespace
