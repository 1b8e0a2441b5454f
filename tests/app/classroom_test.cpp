// Classroom mode headless (ImGui context, no renderer): session files through the app's bridge
// (AppState -> Session -> JSON -> Session -> AppState), dropped and named files, malformed and
// newer-version files refused with the state unchanged, and every step of every shipped lesson
// drawn with its compare entries, in normal and presentation layout.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "headless_app.h"
#include "app/gui/work/run_commands.h"
#include "app/gui/work/compute.h"
#include "app/gui/state/derived.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/widgets/theme.h"
#include "core/util/errors.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "classroom";
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// The parts of AppState a session holds.
void expect_same_session_state(const AppState& a, const AppState& b) {
  EXPECT_TRUE(same_model_request(a.request, b.request));
  EXPECT_EQ(a.request.attention.scrambled_reshape, b.request.attention.scrambled_reshape);
  EXPECT_EQ(a.request.sentence, b.request.sentence);
  EXPECT_EQ(a.view, b.view);
  EXPECT_EQ(a.grid.all_layers, b.grid.all_layers);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.head, b.head);
  EXPECT_EQ(a.query.queries, b.query.queries);
  EXPECT_EQ(a.scale.mode, b.scale.mode);
  EXPECT_EQ(a.scale.ignore_first_key, b.scale.ignore_first_key);
  EXPECT_EQ(a.scale.colormap, b.scale.colormap);
}

TEST(SessionBridge, RoundTripThroughJsonForEveryView) {
  for (View v : {View::heads, View::head, View::query, View::difference, View::width, View::average}) {
    for (bool all_layers : {false, true}) {
      if (all_layers && v != View::heads) continue;
      AppState a = default_app_state();
      a.request.sentence = "Zoë's café — \"quoted\" words";
      a.request.attention.d_model = 12;
      a.request.attention.n_heads = 6;
      a.request.attention.n_kv_heads = 3;
      a.request.attention.causal = true;
      a.request.attention.window = 3;
      a.request.attention.temperature = 0.5f;
      a.request.seed = 7;
      a.request.attention.scrambled_reshape = v == View::average;
      a.view = v;
      a.grid.all_layers = all_layers;
      a.layer = 0, a.head = 5;
      a.query.queries = {1, 3};
      a.scale = {hs::ScaleMode::log, true, hs::Colormap::cividis};
      const std::string text = hs::session_to_json(session_from_state(a));
      AppState b = default_app_state();
      apply_session(b, hs::parse_session(text, "round.json"));
      expect_same_session_state(a, b);
      EXPECT_EQ(view_switch_pending(b), v != View::heads) << "the view switches tabs on the next frame";
      EXPECT_EQ(b.model.window_size, 3) << "the window slider shows the session's W";
    }
  }
}

TEST(SessionBridge, SaveThenOpenThroughTheRequestsAndTheStatusLine) {
  AppState a = default_app_state();
  a.request.attention.n_heads = 2;
  a.view = View::difference;
  a.session.folder = scratch("x").parent_path().string();
  a.session.file_name = "saved.json";
  a.commands.push(SaveSession{});
  StatusInfo status;
  run_commands(a, status, {});
  EXPECT_FALSE(status.export_failed) << status.last_export;
  ASSERT_TRUE(fs::exists(scratch("saved.json")));
  AppState b = default_app_state();
  b.commands.push(OpenFiles{{scratch("saved.json").string()}});
  run_commands(b, status, {});
  EXPECT_EQ(status.error, "");
  expect_same_session_state(a, b);
  EXPECT_EQ(b.session.folder, scratch("x").parent_path().string()) << "the last folder is remembered";
}

TEST(SessionBridge, MalformedAndNewerFilesChangeNothingAndSayWhy) {
  struct Case {
    std::string file, text, expect;
  };
  const Case cases[] = {
      {"broken.json", "{\"format\": \"headscope-session\", \"version\": 1, \"model\": {\"heads\": ", "broken.json"},
      {"newer.json", "{\"format\": \"headscope-session\", \"version\": 99}", "99"},
      {"heads.json", "{\"format\": \"headscope-session\", \"version\": 1, \"model\": {\"heads\": \"four\"}}", "model.heads"},
      {"impossible.json", "{\"format\": \"headscope-session\", \"version\": 1, \"model\": {\"d_model\": 8, \"heads\": 3}}",
       "heads (3)"},
      {"panel.json", "{\"format\": \"headscope-session\", \"version\": 1, \"view\": {\"panel\": \"sideways\"}}", "view.panel"},
  };
  for (const Case& c : cases) {
    write(scratch(c.file), c.text);
    AppState s = default_app_state();
    s.request.attention.n_heads = 2;
    s.head = 1;
    const AppState before = s;
    StatusInfo status;
    s.commands.push(OpenFiles{{scratch(c.file).string()}});
    run_commands(s, status, {});
    EXPECT_NE(status.error.find(c.expect), std::string::npos) << c.file << ": " << status.error;
    EXPECT_NE(status.error.find(c.file), std::string::npos) << "the message names the file: " << status.error;
    expect_same_session_state(before, s);
  }
  AppState s = default_app_state();
  StatusInfo status;
  s.commands.push(OpenFiles{{scratch("missing.json").string()}});
  run_commands(s, status, {});
  EXPECT_NE(status.error.find("missing.json"), std::string::npos) << status.error;
}

// Issue 15: a session or lesson that is /dev/zero (through a symlink) or a huge file is an error
// naming the file, in the status line, with the previous state kept; never std::bad_alloc.
TEST(SessionBridge, DeviceOrHugeSessionIsAnErrorInTheStatusLine) {
  const fs::path zero = scratch("zero.json"), huge = scratch("huge.json");
  fs::remove(zero);
  fs::create_symlink("/dev/zero", zero);
  { std::ofstream(huge) << "{"; }
  fs::resize_file(huge, uintmax_t(6) << 30);  // sparse: 6 GiB that take no disk
  for (const fs::path& p : {zero, huge}) {
    AppState s = default_app_state();
    s.request.attention.n_heads = 2;
    const AppState before = s;
    StatusInfo status;
    s.commands.push(OpenFiles{{p.string()}});
    ASSERT_NO_THROW(run_commands(s, status, {})) << p;
    EXPECT_NE(status.error.find(p.filename().string()), std::string::npos) << status.error;
    EXPECT_EQ(status.error.find("bad_alloc"), std::string::npos) << status.error;
    expect_same_session_state(before, s);
    try {
      find_lesson(p.string());
      ADD_FAILURE() << p << " was accepted as a lesson";
    } catch (const hs::Error& e) {
      EXPECT_NE(std::string(e.what()).find(p.filename().string()), std::string::npos) << e.what();
    }
  }
  fs::remove(huge);
}

TEST(SessionBridge, DroppedFolderOrFileOpensAsACheckpoint) {
  const fs::path folder = scratch("hf_model");
  fs::create_directories(folder);
  AppState s = default_app_state();
  StatusInfo status;
  s.commands.push(OpenFiles{{folder.string()}});
  run_commands(s, status, {});
  EXPECT_EQ(s.request.model_path, folder.string());
  EXPECT_EQ(s.request.tokenizer, "");
  const fs::path llama = scratch("llama");
  fs::create_directories(llama);
  write(llama / "model.bin", "x");
  write(llama / "tokenizer.bin", "x");
  s.commands.push(OpenFiles{{(llama / "model.bin").string()}});
  run_commands(s, status, {});
  EXPECT_EQ(s.request.model_path, (llama / "model.bin").string());
  EXPECT_EQ(s.request.tokenizer, (llama / "tokenizer.bin").string()) << "its tokenizer from the same folder";
}

TEST(Lessons, ShippedLessonsAreEmbeddedAndMalformedOnesAreRefused) {
  ASSERT_FALSE(shipped_lessons().empty());
  EXPECT_EQ(find_lesson("multi_head_attention")->steps.size(), 10u);
  write(scratch("bad_lesson.json"), "{\"format\": \"headscope-lesson\", \"version\": 1, \"title\": \"t\", "
                                    "\"steps\": [{\"title\": \"a\", \"caption\": \"b\", \"session\": {\"model\": {\"heads\": 3}}}]}");
  try {
    find_lesson(scratch("bad_lesson.json").string());
    ADD_FAILURE() << "a lesson with impossible settings must be refused";
  } catch (const hs::FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("bad_lesson.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("step 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(find_lesson(scratch("no_such_lesson.json").string()), hs::Error);
}

TEST(Lessons, LockedControlsFollowTheStep) {
  AppState s = default_app_state();
  EXPECT_FALSE(control_locked(s, hs::LessonControl::heads)) << "nothing is locked without a lesson";
  start_lesson(s, find_lesson("multi_head_attention"), 4);  // step 5 unlocks heads
  EXPECT_FALSE(control_locked(s, hs::LessonControl::heads));
  EXPECT_TRUE(control_locked(s, hs::LessonControl::d_model));
  go_to_step(s, 99);
  EXPECT_EQ(s.lesson.step, 9) << "clamped to the last step";
  EXPECT_EQ(s.request.model_path, "stories260K") << "the last step brings the shipped model";
  EXPECT_FALSE(control_locked(s, hs::LessonControl::layer));
  EXPECT_TRUE(control_locked(s, hs::LessonControl::sentence)) << "no sentence box: the 40-map overview keeps the height";
  stop_lesson(s);
  EXPECT_FALSE(control_locked(s, hs::LessonControl::d_model));
}

class HeadlessLesson : public hs::gui::test::HeadlessApp {
 protected:
  HeadlessLesson() : HeadlessApp(ImVec2(1920, 1080)) {}
  void SetUp() override {
    HeadlessApp::SetUp();
    for (const std::string& name : shipped_lessons()) lessons_.push_back(find_lesson(name));
    ui_.lessons = &lessons_;
  }

  // What the worker does for the state: the maps and the step's compare entries.
  void compute(const AppState& state) {
    derived_ = compute_derived(state.request, 1);
    derived_->compare = compute_compare(compare_requests(state), 1);
    ui_.derived = derived_.get();
  }

  int maps_named(const std::string& prefix) const {
    int n = 0;
    for (const DrawnHeatmap& h : report_.heatmaps) n += h.key.rfind(prefix, 0) == 0;
    return n;
  }

  std::vector<std::shared_ptr<const hs::Lesson>> lessons_;
  std::shared_ptr<Derived> derived_;
};

TEST_F(HeadlessLesson, EveryStepOfEveryShippedLessonDrawsWithItsCompareEntries) {
  ASSERT_FALSE(lessons_.empty());
  for (bool present : {false, true}) {
    for (const auto& lesson : lessons_) {
      AppState state = default_app_state();
      state.present.active = present;
      start_lesson(state, lesson, 0);
      for (size_t i = 0; i < lesson->steps.size(); ++i) {
        SCOPED_TRACE(lesson->title + ", step " + std::to_string(i + 1) + (present ? ", presenting" : ""));
        go_to_step(state, int(i));
        const hs::LessonStep* step = active_step(state);
        ASSERT_NE(step, nullptr);
        compute(state);
        for (int k = 0; k < 3; ++k) frame(state);
        for (const CompareResult& c : derived_->compare) EXPECT_TRUE(c.analysis) << c.label << ": " << c.error;
        EXPECT_FALSE(view_switch_pending(state));
        if (state.view == View::heads && !state.grid.all_layers) {
          EXPECT_EQ(maps_named("grid"), derived_->run().n_heads());
          for (size_t c = 0; c < step->compare.size(); ++c) {
            EXPECT_EQ(maps_named("compare" + std::to_string(c + 1) + " "), derived_->compare[c].analysis->run.n_heads());
          }
        }
        if (present) {
          EXPECT_EQ(state.scale.colormap, hs::Colormap::cividis);
        }
        // The mouse over the whole window (hover and click), then the captions off.
        for (int y = 0; y < 4; ++y)
          for (int x = 0; x < 4; ++x) {
            const ImVec2 p(1920.0f * (x + 0.5f) / 4, 1080.0f * (y + 0.5f) / 4);
            frame(state, p, true);
            frame(state, p, false);
          }
        state.lesson.captions = !state.lesson.captions;
        frame(state);
        state.lesson.captions = true;
        if (state.lesson.step != int(i)) go_to_step(state, int(i));  // a click on Next/Previous
      }
    }
  }
}

TEST_F(HeadlessLesson, KeysStepThroughTheLessonAndToggleCaptionsAndPresentation) {
  ImGuiIO& io = ImGui::GetIO();
  io.KeyMap[ImGuiKey_LeftArrow] = 263, io.KeyMap[ImGuiKey_RightArrow] = 262;
  io.KeyMap[ImGuiKey_PageUp] = 266, io.KeyMap[ImGuiKey_PageDown] = 267, io.KeyMap[ImGuiKey_Home] = 268;
  io.KeyMap[ImGuiKey_Escape] = 256;
  AppState state = default_app_state();
  start_lesson(state, lessons_[0], 0);
  compute(state);
  frame(state);
  const auto press = [&](int key) {
    io.KeysDown[key] = true;
    frame(state);
    io.KeysDown[key] = false;
    frame(state);
  };
  press(262);
  EXPECT_EQ(state.lesson.step, 1);
  press(267);
  EXPECT_EQ(state.lesson.step, 2);
  press(263);
  EXPECT_EQ(state.lesson.step, 1);
  press(266);
  EXPECT_EQ(state.lesson.step, 0);
  press(262), press(262), press(268);
  EXPECT_EQ(state.lesson.step, 0) << "Home: the first step";
  press('C');
  EXPECT_FALSE(state.lesson.captions);
  press('C');
  EXPECT_TRUE(state.lesson.captions);
  press(294);  // F5
  EXPECT_TRUE(state.present.active);
  const float font = state.present.font_scale;
  io.KeyCtrl = true;
  press('=');
  io.KeyCtrl = false;
  EXPECT_GT(state.present.font_scale, font) << "Ctrl + makes the fonts larger";
  io.KeyCtrl = true;
  press('-'), press('-');
  io.KeyCtrl = false;
  EXPECT_LT(state.present.font_scale, font) << "Ctrl - smaller";
  press(256);  // Esc
  EXPECT_FALSE(state.present.active);
}

TEST_F(HeadlessLesson, PresentationDrawsAPointerHighlightAtTheMouse) {
  AppState state = default_app_state();
  compute(state);
  frame(state, ImVec2(700, 600));
  const int plain = ImGui::GetForegroundDrawList()->VtxBuffer.Size;
  state.present.active = true;
  frame(state, ImVec2(700, 600));
  EXPECT_GT(ImGui::GetForegroundDrawList()->VtxBuffer.Size, plain + 40) << "a soft circle at the pointer";
  frame(state);
  EXPECT_EQ(ImGui::GetForegroundDrawList()->VtxBuffer.Size, plain) << "no pointer, no circle";
}

TEST_F(HeadlessLesson, PretrainedStepSaysWhatToLoadAndKeepsALoadedCheckpoint) {
  // A step that needs a checkpoint without naming one keeps the one the user loaded.
  const auto lesson = std::make_shared<const hs::Lesson>(hs::parse_lesson(
      "{\"format\": \"headscope-lesson\", \"version\": 1, \"title\": \"t\", \"steps\": ["
      "{\"title\": \"a\", \"caption\": \"b\"},"
      "{\"title\": \"c\", \"caption\": \"d\", \"needs_pretrained\": true}]}",
      "pretrained.json"));
  AppState state = default_app_state();
  state.request.model_path = "/models/stories260K.bin";
  state.request.tokenizer = "/models/tok512.bin";
  start_lesson(state, lesson, 1);
  EXPECT_EQ(state.request.model_path, "/models/stories260K.bin");
  EXPECT_EQ(state.request.tokenizer, "/models/tok512.bin");
  go_to_step(state, 0);
  EXPECT_EQ(state.request.model_path, "") << "synthetic steps use the synthetic model";
  // The shipped lessons name their models: the teaching model, the synthetic layer, stories260K.
  start_lesson(state, lessons_[0], 0);
  EXPECT_EQ(state.request.model_path, "teaching");
  go_to_step(state, 4);  // step 5: width-1 heads on the synthetic layer
  EXPECT_EQ(state.request.model_path, "");
  go_to_step(state, 9);
  EXPECT_EQ(state.request.model_path, "stories260K");
}

}  // namespace
