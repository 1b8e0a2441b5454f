// No lost work: the unsaved-changes decisions (unsaved_guard.h) as plain functions, through the
// session bridge (open, save, lesson, new session, quit), and the "Unsaved changes" popup driven
// headless with the app's frame loop: Save... / Discard / Cancel, and imgui.ini written when the
// context shuts down after a quit through the popup.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "headless_imgui.h"
#include "app/gui/work/run_commands.h"
#include "app/gui/work/frame_loop.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/settings.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/work/worker.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "unsaved";
  fs::create_directories(dir);
  return dir / name;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// A session file with 2 heads (the default has 4).
fs::path two_heads_session() {
  AppState s = default_app_state();
  s.request.attention.n_heads = 2;
  const fs::path p = scratch("two_heads.json");
  hs::save_session(p.string(), session_from_state(s));
  return p;
}

AppState clean_state() {
  AppState s = default_app_state();
  mark_session_clean(s);
  return s;
}

TEST(UnsavedGuard, WithoutABaselineOrChangesNothingAsks) {
  AppState s = default_app_state();
  s.request.sentence = "changed";
  EXPECT_FALSE(session_dirty(s)) << "no baseline: nothing to lose";
  mark_session_clean(s);
  EXPECT_FALSE(session_dirty(s));
  ask_action(s, quit_action());
  EXPECT_FALSE(unsaved_popup_wanted(s));
  const auto ready = take_ready_actions(s);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].kind, GuardedKind::quit);
}

TEST(UnsavedGuard, EveryPartOfTheSessionCounts) {
  const auto changed = [](void (*change)(AppState&)) {
    AppState s = clean_state();
    change(s);
    return session_dirty(s);
  };
  EXPECT_TRUE(changed([](AppState& s) { s.request.sentence += "!"; }));
  EXPECT_TRUE(changed([](AppState& s) { s.request.attention.n_heads = 2; }));
  EXPECT_TRUE(changed([](AppState& s) { s.request.attention.causal = true; }));
  EXPECT_TRUE(changed([](AppState& s) { s.request.attention.temperature = 0.5f; }));
  EXPECT_TRUE(changed([](AppState& s) { s.request.model_path = "m.bin"; }));
  EXPECT_TRUE(changed([](AppState& s) { s.view = View::query; }));
  EXPECT_TRUE(changed([](AppState& s) { s.grid.all_layers = true; }));
  EXPECT_TRUE(changed([](AppState& s) { s.head = 3; }));
  EXPECT_TRUE(changed([](AppState& s) { s.query.queries = {2}; }));
  EXPECT_TRUE(changed([](AppState& s) { s.scale.mode = hs::ScaleMode::log; }));
  EXPECT_TRUE(changed([](AppState& s) { s.scale.colormap = hs::Colormap::magma; }));
  EXPECT_FALSE(changed([](AppState& s) { s.sidebar_width = 500; })) << "layout is not session state";
  EXPECT_FALSE(changed([](AppState& s) { s.present.active = true; }));
  // A NaN temperature is one setting, not a change every frame.
  AppState s = default_app_state();
  s.request.attention.temperature = std::numeric_limits<float>::quiet_NaN();
  mark_session_clean(s);
  EXPECT_FALSE(session_dirty(s));
  EXPECT_TRUE(same_model_request(s.request, s.request));
}

TEST(UnsavedGuard, CancelKeepsEverythingDiscardContinues) {
  AppState s = clean_state();
  s.request.sentence = "my own sentence";
  ask_action(s, reset_action());
  EXPECT_TRUE(unsaved_popup_wanted(s));
  EXPECT_TRUE(take_ready_actions(s).empty());
  ask_action(s, open_action({"x.json"}));
  EXPECT_EQ(s.unsaved.waiting.kind, GuardedKind::reset) << "one question at a time";
  answer_unsaved(s, UnsavedChoice::cancel);
  EXPECT_FALSE(unsaved_popup_wanted(s));
  EXPECT_TRUE(take_ready_actions(s).empty());
  EXPECT_EQ(s.request.sentence, "my own sentence");

  ask_action(s, open_action({"x.json"}));
  ask_action(s, quit_action());
  EXPECT_EQ(s.unsaved.waiting.kind, GuardedKind::quit) << "a quit takes the place of what waits";
  answer_unsaved(s, UnsavedChoice::discard);
  const auto ready = take_ready_actions(s);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].kind, GuardedKind::quit);
  EXPECT_EQ(describe_action(open_action({"/a/b/s.json"})), "open s.json");
}

TEST(UnsavedGuard, DroppedSessionWaitsThenDiscardOpensIt) {
  const fs::path file = two_heads_session();
  AppState s = clean_state();
  s.request.sentence = "unsaved words";
  StatusInfo status;
  s.commands.push(OpenFiles{{file.string()}});
  run_commands(s, status, {});
  EXPECT_EQ(s.request.attention.n_heads, 4) << "nothing replaced before the answer";
  EXPECT_EQ(s.request.sentence, "unsaved words");
  ASSERT_TRUE(unsaved_popup_wanted(s));
  answer_unsaved(s, UnsavedChoice::discard);
  run_commands(s, status, {});
  EXPECT_EQ(s.request.attention.n_heads, 2);
  EXPECT_EQ(status.error, "");
  EXPECT_FALSE(session_dirty(s)) << "what was opened counts as saved";
}

TEST(UnsavedGuard, DroppedCheckpointDoesNotAsk) {
  const fs::path folder = scratch("hf_folder");
  fs::create_directories(folder);
  AppState s = clean_state();
  s.request.sentence = "unsaved words";
  StatusInfo status;
  s.commands.push(OpenFiles{{folder.string()}});
  run_commands(s, status, {});
  EXPECT_FALSE(unsaved_popup_wanted(s));
  EXPECT_EQ(s.request.model_path, folder.string()) << "a model only changes the model";
  EXPECT_EQ(s.request.sentence, "unsaved words");
  EXPECT_TRUE(session_dirty(s));
}

TEST(UnsavedGuard, SaveFirstSavesAtomicallyThenContinues) {
  const fs::path file = two_heads_session();
  AppState s = clean_state();
  s.request.sentence = "worth keeping";
  StatusInfo status;
  s.session.folder = scratch("x").parent_path().string();
  s.session.file_name = "kept.json";
  fs::remove(scratch("kept.json"));
  ask_action(s, open_action({file.string()}));
  answer_unsaved(s, UnsavedChoice::save);
  EXPECT_EQ(s.session.dialog, SessionDialog::save) << "Save... opens the save dialog";
  EXPECT_FALSE(unsaved_popup_wanted(s));
  run_commands(s, status, {});  // the dialog is still open: nothing happens yet
  EXPECT_EQ(s.request.sentence, "worth keeping");
  // The dialog's Save button.
  s.session.dialog = SessionDialog::none;
  s.commands.push(SaveSession{});
  run_commands(s, status, {});
  ASSERT_TRUE(fs::exists(scratch("kept.json")));
  EXPECT_EQ(hs::load_session(scratch("kept.json").string()).request.sentence, "worth keeping");
  EXPECT_EQ(s.request.attention.n_heads, 2) << "then the session opened";
  EXPECT_EQ(s.session.file_name, "two_heads.json");
  EXPECT_FALSE(session_dirty(s));
}

TEST(UnsavedGuard, ASaveThatFailsOrIsCancelledDiscardsNothing) {
  for (bool fail : {true, false}) {
    AppState s = clean_state();
    s.request.sentence = "worth keeping";
    StatusInfo status;
    s.session.folder = scratch("no_such_folder/deeper").string();
    s.session.file_name = "x.json";
    ask_action(s, reset_action());
    answer_unsaved(s, UnsavedChoice::save);
    s.session.dialog = SessionDialog::none;
    if (fail) s.commands.push(SaveSession{});  // Save into a folder that is not there, or the dialog's Cancel
    run_commands(s, status, {});
    EXPECT_EQ(s.request.sentence, "worth keeping") << (fail ? "failed save" : "cancelled save");
    EXPECT_TRUE(session_dirty(s));
    EXPECT_FALSE(unsaved_popup_wanted(s));
    EXPECT_EQ(s.unsaved.waiting.kind, GuardedKind::none);
    if (fail) {
      EXPECT_TRUE(status.export_failed);
      EXPECT_NE(status.last_export.find("nothing was discarded"), std::string::npos) << status.last_export;
    }
  }
}

TEST(UnsavedGuard, LessonStartAsksStepsDoNot) {
  AppState s = clean_state();
  s.request.sentence = "mine";
  StatusInfo status;
  const auto lesson = find_lesson("multi_head_attention");
  ask_action(s, lesson_action(lesson, 0));
  ASSERT_TRUE(unsaved_popup_wanted(s));
  EXPECT_EQ(s.lesson.lesson, nullptr);
  answer_unsaved(s, UnsavedChoice::discard);
  run_commands(s, status, {});
  ASSERT_NE(s.lesson.lesson, nullptr);
  EXPECT_FALSE(session_dirty(s));
  go_to_step(s, 3);
  EXPECT_FALSE(session_dirty(s)) << "a step's state is the lesson's";
  // New session: back to the first screen (the teaching model, not random weights), no lesson.
  s.request.sentence = "tweaked";
  ask_action(s, reset_action());
  answer_unsaved(s, UnsavedChoice::discard);
  run_commands(s, status, {});
  EXPECT_EQ(s.lesson.lesson, nullptr);
  EXPECT_EQ(s.request.sentence, first_screen_state().request.sentence);
  EXPECT_EQ(s.request.model_path, "teaching");
  EXPECT_EQ(s.request.attention.n_heads, 4);
  EXPECT_FALSE(session_dirty(s));
}

// The popup in headless frames with the app's frame loop and worker.
class UnsavedPopup : public ::testing::Test {
 protected:
  void SetUp() override {
    hs::gui::test::start_headless_imgui(ImVec2(1600, 1000), ui_);
    ui_.images = &images_;
    state_ = default_app_state();
    register_settings(&state_);
    loop_ = std::make_unique<FrameLoop>(state_, ui_, worker_);
    settle();
  }
  void TearDown() override {
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
  }

  void frame(ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    loop_->before_frame();
    ImGui::NewFrame();
    draw_app(state_, ui_);
    ImGui::Render();
    loop_->after_frame();
  }
  void settle() {
    for (int i = 0; i < 3; ++i) {
      worker_.wait_idle();
      frame();
    }
  }
  // Clicks the button `label` in the window `window` (found by hovering over it).
  bool click(const char* window, const char* label) {
    ImGuiWindow* w = ImGui::FindWindowByName(window);
    if (!w || !w->Active) return false;
    const ImGuiID id = w->GetID(label);
    for (float y = w->Pos.y + 2; y < w->Pos.y + w->Size.y; y += 4)
      for (float x = w->Pos.x + 4; x < w->Pos.x + w->Size.x; x += 8) {
        frame(ImVec2(x, y));
        if (ImGui::GetCurrentContext()->HoveredId != id) continue;
        frame(ImVec2(x, y), true);
        frame(ImVec2(x, y), false);
        frame();
        return true;
      }
    return false;
  }
  bool popup_up() {
    const ImGuiWindow* w = ImGui::FindWindowByName("Unsaved changes");
    return w && w->Active;
  }

  UiContext ui_;
  NullHeatmapImages images_;
  AppState state_;
  DerivedWorker worker_;
  std::unique_ptr<FrameLoop> loop_;
};

TEST_F(UnsavedPopup, MarkerShowsWhileUnsavedAndQuitAsks) {
  EXPECT_FALSE(session_dirty(state_)) << "the start counts as saved";
  state_.request.sentence = "something new";
  settle();
  EXPECT_TRUE(session_dirty(state_));
  ask_action(state_, quit_action());  // the window's close button or Ctrl+Q
  frame();
  ASSERT_TRUE(popup_up());
  EXPECT_FALSE(state_.unsaved.quit);
  ASSERT_TRUE(click("Unsaved changes", "Cancel"));
  EXPECT_FALSE(popup_up());
  EXPECT_FALSE(state_.unsaved.quit);
  EXPECT_EQ(state_.request.sentence, "something new");
  // Ctrl+Q.
  ImGuiIO& io = ImGui::GetIO();
  io.KeyCtrl = true;
  io.KeysDown['Q'] = true;
  frame();
  io.KeysDown['Q'] = false;
  io.KeyCtrl = false;
  frame();
  ASSERT_TRUE(popup_up()) << "Ctrl+Q asks too";
  ASSERT_TRUE(click("Unsaved changes", "Discard"));
  EXPECT_TRUE(state_.unsaved.quit);
}

TEST_F(UnsavedPopup, SaveThenQuitWritesTheSessionAndImguiIni) {
  const fs::path ini = scratch("imgui.ini");
  fs::remove(ini);
  ImGui::GetIO().IniFilename = nullptr;
  state_.session.folder = scratch("x").parent_path().string();
  state_.session.file_name = "before_quit.json";
  fs::remove(scratch("before_quit.json"));
  state_.request.attention.causal = true;
  state_.sidebar_width = 444;
  settle();
  ask_action(state_, quit_action());
  frame();
  ASSERT_TRUE(click("Unsaved changes", "Save..."));
  EXPECT_FALSE(state_.unsaved.quit) << "not before the save";
  frame();
  ASSERT_TRUE(click("Save session###session", "Save")) << "the save dialog";
  EXPECT_TRUE(state_.unsaved.quit);
  ASSERT_TRUE(fs::exists(scratch("before_quit.json")));
  EXPECT_TRUE(hs::load_session(scratch("before_quit.json").string()).request.attention.causal);
  // The main loop now leaves; shutting ImGui down writes the layout and preferences.
  const std::string ini_path = ini.string();
  ImGui::GetIO().IniFilename = ini_path.c_str();
  ImGui::DestroyContext();
  ASSERT_TRUE(fs::exists(ini));
  const std::string text = read_text(ini);
  EXPECT_NE(text.find("[headscope][prefs]"), std::string::npos) << text;
  EXPECT_NE(text.find("sidebar_width=444"), std::string::npos) << text;
}

TEST_F(UnsavedPopup, ResultsThatFitTheSelectionKeepASavedSessionSaved) {
  // As if a session with 2 heads that selects head 3 was just opened: the result clamps the
  // head to 1, which is not the user's work.
  state_.request.attention.n_heads = 2;
  state_.head = 3;
  mark_session_clean(state_);
  settle();
  EXPECT_EQ(state_.head, 1);
  EXPECT_FALSE(session_dirty(state_));
}

}  // namespace
