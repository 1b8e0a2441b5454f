// The open-model controls driven headless (ImGui context, no renderer) with the app's real
// worker and the main loop's result handling: type a path, Open, recent models, the continue
// slider; a corrupt file and a missing path show their error and keep the previous model.
// stories260K comes from ${HEADSCOPE_MODELS_DIR}; those tests skip when it is absent.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "headless_imgui.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/selection.h"
#include "app/gui/actions/settings.h"
#include "app/gui/state/model_sentence.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/work/worker.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

class OpenModel : public ::testing::Test {
 protected:
  void SetUp() override {
    hs::gui::test::start_headless_imgui(ImVec2(1600, 1000), ui_);
    ui_.images = &images_;
    ui_.report = &report_;
    state_ = default_app_state();
    submitted_ = state_.request;
    worker_.submit(submitted_);
    settle();
  }
  void TearDown() override { ImGui::DestroyContext(); }

  static bool have_stories() { return fs::exists(kStories / "stories260K.bin") && fs::exists(kStories / "tok512.bin"); }

  void frame(ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    report_.heatmaps.clear();
    ImGui::NewFrame();
    draw_app(state_, ui_);
    ImGui::Render();
  }

  // What main.cpp does each frame with the worker, until it is idle.
  void settle() {
    for (int i = 0; i < 4; ++i) {
      if (!same_model_request(state_.request, submitted_)) worker_.submit(submitted_ = state_.request);
      worker_.wait_idle();
      if (std::optional<WorkerResult> r = worker_.poll()) {
        if (r->derived) {
          shown_ = r->derived;
          ui_.status.error.clear();
          clamp_selection(state_, *shown_);
          note_good_result(state_, *shown_);
        } else {
          ui_.status.error = r->error;
          if (keep_shown_model(state_, shown_.get(), r->error)) submitted_ = state_.request;
        }
      }
      ui_.derived = shown_.get();
      ui_.status.computing = worker_.busy();
      frame();
    }
  }

  // Finds the widget `id` in the sidebar by hovering over it, then clicks it.
  bool click(ImGuiID id, float at_x_fraction = -1) {
    const ImGuiWindow* w = ImGui::FindWindowByName("##model");
    if (!w) return false;
    for (float y = w->Pos.y + 2; y < w->Pos.y + w->Size.y; y += 4)
      for (float x = w->Pos.x + 16; x < w->Pos.x + w->Size.x - 16; x += 24) {
        frame(ImVec2(x, y));
        if (ImGui::GetCurrentContext()->HoveredId != id) continue;
        const ImVec2 p(at_x_fraction >= 0 ? w->Pos.x + w->Size.x * at_x_fraction : x, y);
        frame(p);
        frame(p, true);
        frame(p, false);
        frame();
        return true;
      }
    return false;
  }
  ImGuiID id(const char* label) { return ImGui::FindWindowByName("##model")->GetID(label); }

  // Clicks the path box and types `text` into it, as a user would.
  void type_path(const std::string& text) {
    state_.open_model.path.clear();
    ASSERT_TRUE(click(id("##model path"))) << "the path box is not on screen";
    ImGui::GetIO().AddInputCharactersUTF8(text.c_str());
    frame();
    frame();
    frame(ImVec2(800, 990), true);  // click elsewhere: the box lets go
    frame(ImVec2(800, 990), false);
  }

  void open(const std::string& path) {
    if (!state_.open_model.checkpoint) {
      ASSERT_TRUE(click(id("checkpoint")));
    }
    ASSERT_TRUE(state_.open_model.checkpoint);
    type_path(path);
    ASSERT_EQ(state_.open_model.path, path);
    ASSERT_TRUE(click(id("Open"))) << "no Open button";
    settle();
  }

  void write_garbage(const fs::path& p) {
    std::ofstream f(p, std::ios::binary);
    for (int i = 0; i < 300; ++i) f << "not a checkpoint \x01\xff";
  }

  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
  AppState state_;
  DerivedWorker worker_;
  hs::ModelRequest submitted_;
  std::shared_ptr<const Derived> shown_;
};

TEST_F(OpenModel, TokenizerBesideTheCheckpoint) {
  if (!have_stories()) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  EXPECT_EQ(tokenizer_beside((kStories / "stories260K.bin").string()), (kStories / "tok512.bin").string());
  EXPECT_EQ(tokenizer_beside(kStories.string()), "") << "folders bring their own tokenizer";
  EXPECT_EQ(tokenizer_beside("/no/such/model.bin"), "");
  EXPECT_EQ(model_display_name("/a/b/gpt2/"), "gpt2");
}

TEST_F(OpenModel, OpensStories260KFromTheBoxAndShowsItsShape) {
  if (!have_stories()) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  ASSERT_TRUE(shown_);
  EXPECT_EQ(shown_->run().info.kind, "synthetic");
  const std::string path = (kStories / "stories260K.bin").string();
  open(path);
  EXPECT_TRUE(state_.open_model.tokenizer_auto);
  EXPECT_EQ(state_.request.tokenizer, (kStories / "tok512.bin").string()) << "tok512.bin is filled in beside the .bin";
  ASSERT_TRUE(shown_);
  EXPECT_EQ(ui_.status.error, "");
  const hs::ModelInfo& info = shown_->run().info;
  EXPECT_EQ(info.kind, "llama2c");
  EXPECT_EQ(info.n_layers, 5);
  EXPECT_EQ(info.n_heads, 8);
  EXPECT_EQ(info.n_kv_heads, 4);
  EXPECT_EQ(info.vocab_size, 512);
  ASSERT_EQ(state_.open_model.recent.size(), 1u);
  EXPECT_EQ(state_.open_model.recent[0].path, path);
  // Sub-word labels as the model sees them, and a prediction after every position.
  EXPECT_EQ(shown_->run().tokens[0], "<s>");
  EXPECT_EQ(shown_->run().tokens[1].rfind("\xE2\x96\x81", 0), 0u) << shown_->run().tokens[1];
  EXPECT_EQ(shown_->run().next_tokens.size(), shown_->run().tokens.size());
  EXPECT_NE(next_token_note(shown_->run(), 1).find("expects"), std::string::npos);
  // The layer control in the model panel (its slider; the value is written above it).
  ASSERT_TRUE(click(id("##layer"), 0.5f));
  EXPECT_GT(state_.layer, 0);
  for (View v : {View::heads, View::head, View::query, View::difference, View::width}) {
    request_view(state_, v);
    frame();
    frame();
  }
}

// Issue 19: a real trained model one click away, and the teaching model beside it, from the
// synthetic start (no path typed, no checkpoint switch first).
TEST_F(OpenModel, ShippedModelsOpenWithOneClick) {
  ASSERT_TRUE(shown_);
  EXPECT_EQ(shown_->run().info.kind, "synthetic");
  ASSERT_TRUE(click(id("stories260K (shipped)"))) << "no stories260K button in the model panel";
  settle();
  EXPECT_EQ(state_.request.model_path, "stories260K");
  ASSERT_TRUE(shown_);
  EXPECT_EQ(ui_.status.error, "");
  EXPECT_EQ(shown_->run().info.name, "stories260K");
  EXPECT_EQ(shown_->run().info.n_layers, 5);
  ASSERT_TRUE(click(id("teaching (built in)"))) << "no teaching model button in the model panel";
  settle();
  EXPECT_EQ(state_.request.model_path, "teaching");
  EXPECT_EQ(shown_->run().info.kind, "teaching");
  EXPECT_EQ(shown_->run().n_heads(), 4);
}

// Issue 19: the default sentence split into 28 pieces with stories260K ("Pri", "y", "a", ...).
// Its one-click button now shows a sentence in its own words; the synthetic switch brings the
// default back; a sentence the user typed stays through both.
TEST_F(OpenModel, Stories260KOpensOnASentenceInItsOwnWordsAndKeepsTheUsersText) {
  const std::string synthetic = state_.request.sentence;
  ASSERT_EQ(synthetic, default_app_state().request.sentence);
  ASSERT_TRUE(click(id("stories260K (shipped)")));
  settle();
  ASSERT_TRUE(shown_);
  EXPECT_EQ(state_.request.sentence, model_example_sentence("stories260K"));
  EXPECT_NE(state_.request.sentence, synthetic);
  // Its tokens are words: one per word or punctuation mark, and <s> (the default: 28 for 11 words).
  int words = 0;
  for (size_t i = 0; i < state_.request.sentence.size(); ++i) {
    const char c = state_.request.sentence[i], prev = i ? state_.request.sentence[i - 1] : ' ';
    words += (std::isalpha((unsigned char)c) && !std::isalpha((unsigned char)prev)) || c == ',' || c == '.';
  }
  std::string pieces;
  for (const std::string& t : shown_->run().tokens) pieces += "[" + t + "]";
  EXPECT_LE(shown_->run().n_tokens(), words + 1) << shown_->run().n_tokens() << " tokens for " << words << " words: " << pieces;
  ASSERT_TRUE(click(id("synthetic")));
  settle();
  EXPECT_EQ(state_.request.sentence, synthetic) << "back to the synthetic layer's sentence";
  // The user's own text is never replaced.
  state_.request.sentence = "my dog ran home";
  ASSERT_TRUE(click(id("stories260K (shipped)")));
  settle();
  EXPECT_EQ(state_.request.sentence, "my dog ran home");
  ASSERT_TRUE(click(id("synthetic")));
  EXPECT_EQ(state_.request.sentence, "my dog ran home");
}

// Found by control_fuzz_test: from stories260K (its own sentence), opening a broken file put the
// default sentence in the request; the failed open then brought the model back but not the
// sentence, so a new request replaced the error with a good result and nothing was said.
TEST_F(OpenModel, AFailedOpenBringsTheShownSentenceBackAndKeepsItsError) {
  ASSERT_TRUE(click(id("stories260K (shipped)")));
  settle();
  ASSERT_TRUE(shown_);
  const std::string lily = state_.request.sentence;
  ASSERT_EQ(lily, model_example_sentence("stories260K"));
  const fs::path bad = fs::temp_directory_path() / "headscope_open_model_garbage_sentence.bin";
  write_garbage(bad);
  state_.open_model.path = bad.string();
  ASSERT_TRUE(open_model_from_boxes(state_));
  EXPECT_NE(state_.request.sentence, lily) << "the open puts the default sentence in";
  settle();
  EXPECT_EQ(state_.request.sentence, lily) << "the shown model's sentence is back";
  EXPECT_EQ(shown_->run().info.name, "stories260K");
  EXPECT_FALSE(ui_.status.error.empty()) << "the failed open is reported";
  EXPECT_FALSE(state_.open_model.error.empty());
}

TEST(ModelSentence, FollowsTheModelOnlyForAnExampleOrEmptySentence) {
  const std::string priya = default_app_state().request.sentence, lily = model_example_sentence("stories260K");
  EXPECT_NE(priya, lily);
  for (const char* p : {"stories260K", "/x/stories260K.bin", "/x/stories260K/", "../shared/models/stories260K/stories260K.bin"})
    EXPECT_EQ(model_example_sentence(p), lily) << p;
  for (const char* p : {"", "teaching", "/x/gpt2", "/x/stories15M.bin"}) EXPECT_EQ(model_example_sentence(p), priya) << p;
  EXPECT_EQ(sentence_for_model(priya, "stories260K"), lily);
  EXPECT_EQ(sentence_for_model("", "stories260K"), "") << "a checkpoint may generate from nothing";
  EXPECT_EQ(sentence_for_model(lily, ""), priya);
  EXPECT_EQ(sentence_for_model(lily, "/x/gpt2"), priya);
  EXPECT_EQ(sentence_for_model("the cat sat", "stories260K"), "the cat sat");
  EXPECT_EQ(sentence_for_model("the cat sat", ""), "the cat sat");
  EXPECT_TRUE(is_example_sentence(priya));
  EXPECT_TRUE(is_example_sentence(lily));
  EXPECT_FALSE(is_example_sentence(""));
  EXPECT_FALSE(is_example_sentence("the cat sat"));
}

TEST_F(OpenModel, CorruptFileShowsTheErrorAndKeepsThePreviousModel) {
  const fs::path bad = fs::temp_directory_path() / "headscope_open_model_garbage.bin";
  write_garbage(bad);
  open(bad.string());
  EXPECT_FALSE(ui_.status.error.empty()) << "the status line names the problem";
  EXPECT_EQ(state_.open_model.error, ui_.status.error);
  EXPECT_NE(ui_.status.error.find("headscope_open_model_garbage.bin"), std::string::npos) << ui_.status.error;
  ASSERT_TRUE(shown_);
  EXPECT_EQ(shown_->run().info.kind, "synthetic") << "the previous maps stay";
  EXPECT_EQ(state_.request.model_path, "") << "the previous model goes back into the request";
  EXPECT_EQ(state_.open_model.path, bad.string()) << "the box keeps the path to fix it";
  EXPECT_TRUE(state_.open_model.checkpoint) << "the source switch stays on checkpoint";
  EXPECT_TRUE(state_.open_model.recent.empty()) << "a failed model is not a recent one";
  // Typing now recomputes the previous model, not the broken one.
  state_.request.sentence = "another sentence";
  settle();
  EXPECT_EQ(shown_->run().info.kind, "synthetic");
  EXPECT_EQ(shown_->analysis->request.sentence, "another sentence");

  if (have_stories()) {
    open((kStories / "stories260K.bin").string());
    ASSERT_EQ(shown_->run().info.kind, "llama2c");
    open(bad.string());
    EXPECT_FALSE(ui_.status.error.empty());
    EXPECT_EQ(shown_->run().info.kind, "llama2c") << "the checkpoint on screen stays";
    EXPECT_EQ(state_.request.model_path, (kStories / "stories260K.bin").string());
  }
  fs::remove(bad);
}

TEST_F(OpenModel, MissingPathAndEmptyBox) {
  open("/no/such/folder/model.bin");
  EXPECT_NE(ui_.status.error.find("no such file"), std::string::npos) << ui_.status.error;
  EXPECT_EQ(shown_->run().info.kind, "synthetic");
  EXPECT_EQ(state_.request.model_path, "");
  // An empty box does not submit anything; the panel says what to give.
  const hs::ModelRequest before = state_.request;
  state_.open_model.path = "  ";
  ASSERT_TRUE(click(id("Open")));
  EXPECT_TRUE(same_model_request(before, state_.request));
  EXPECT_NE(state_.open_model.error.find("give a"), std::string::npos) << state_.open_model.error;
}

TEST_F(OpenModel, ContinueSliderGeneratesAndRecentModelsReopen) {
  if (!have_stories()) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  const std::string path = (kStories / "stories260K.bin").string();
  open(path);
  ASSERT_EQ(shown_->run().info.kind, "llama2c");
  const int prompt = shown_->run().n_tokens();
  ASSERT_TRUE(click(id("continue"), 0.2f)) << "no continue slider";
  const int n = state_.request.generate;
  EXPECT_GT(n, 0);
  EXPECT_LE(n, kMaxGenerate);
  settle();
  ASSERT_EQ(shown_->analysis->request.generate, n);
  EXPECT_EQ(shown_->run().prompt_tokens, prompt);
  EXPECT_EQ(shown_->run().n_tokens(), prompt + n);
  EXPECT_EQ(first_generated(shown_->run()), prompt);
  EXPECT_TRUE(is_generated(shown_->run(), prompt + n - 1));
  EXPECT_FALSE(is_generated(shown_->run(), prompt - 1));
  state_.query.queries = {prompt + 1};
  for (View v : {View::heads, View::head, View::query}) {
    request_view(state_, v);
    frame();
    frame();
  }
  // Back to the synthetic model, then the recent entry reopens the checkpoint.
  ASSERT_TRUE(click(id("synthetic")));
  settle();
  EXPECT_EQ(shown_->run().info.kind, "synthetic");
  EXPECT_EQ(state_.request.generate, 0);
  const ImGuiWindow* w = ImGui::FindWindowByName("##model");
  const ImGuiID recent = ImHashStr("stories260K.bin##recent0", 0, ImHashStr("recent models", 0, w->ID));
  ASSERT_TRUE(click(id("checkpoint")));
  ASSERT_TRUE(click(recent)) << "no recent entry";
  settle();
  EXPECT_EQ(shown_->run().info.kind, "llama2c");
  EXPECT_EQ(state_.request.model_path, path);
}

TEST_F(OpenModel, RecentModelsPersistInImguiIni) {
  AppState saved = default_app_state();
  remember_recent_model(saved, {"/models/b.bin", "/models/tok.bin"});
  remember_recent_model(saved, {"/models/gpt2", ""});
  for (int i = 0; i < 12; ++i) remember_recent_model(saved, {"/m/" + std::to_string(i) + ".bin", ""});
  remember_recent_model(saved, {"/models/gpt2", ""});
  ASSERT_EQ(int(saved.open_model.recent.size()), kMaxRecentModels);
  EXPECT_EQ(saved.open_model.recent[0].path, "/models/gpt2") << "reopening moves an entry to the front";
  register_settings(&saved);
  ImGui::MarkIniSettingsDirty();
  const std::string ini = ImGui::SaveIniSettingsToMemory();
  EXPECT_NE(ini.find("recent_model=/models/gpt2\t\n"), std::string::npos) << ini;
  ImGui::DestroyContext();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;
  AppState loaded = default_app_state();
  register_settings(&loaded);
  ImGui::LoadIniSettingsFromMemory(ini.c_str(), ini.size());
  ASSERT_EQ(loaded.open_model.recent.size(), saved.open_model.recent.size());
  for (size_t i = 0; i < loaded.open_model.recent.size(); ++i) {
    EXPECT_EQ(loaded.open_model.recent[i].path, saved.open_model.recent[i].path);
    EXPECT_EQ(loaded.open_model.recent[i].tokenizer, saved.open_model.recent[i].tokenizer);
  }
}

TEST_F(OpenModel, StatusLineSaysWhichModelIsLoading) {
  state_.request.model_path = "/models/stories260K.bin";
  ui_.status.computing = true;
  EXPECT_EQ(model_being_loaded(state_, ui_), "stories260K.bin");
  frame();
  ui_.status.computing = false;
  EXPECT_EQ(model_being_loaded(state_, ui_), "");
}

}  // namespace
