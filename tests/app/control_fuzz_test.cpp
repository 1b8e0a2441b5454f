// 1500 random controls (by default) through the app's own frame loop (frame_loop.h: worker,
// result handling, session and guarded requests) and headless ImGui frames: head counts, key/
// value groups, d_model, head width, windows, the causal mask, temperatures from 1e-30 to 1e30
// (denormals, 0, negative, inf, NaN), empty, huge and invalid-UTF-8 sentences, views, heads
// and queries out of range, mouse clicks and keys anywhere, corrupt checkpoints while a real
// one is loaded (stories260K from HEADSCOPE_MODELS_DIR when present), corrupt session files,
// lessons, and answers to the "Unsaved changes" popup. After every step the app settles and
// the invariants are checked: nothing throws; what is shown matches the request with maps of
// the right shape whose rows sum to 1, or the status line names the problem; a failed open
// keeps the model on screen.
//
// HEADSCOPE_CONTROL_SEED=N tries another seed, HEADSCOPE_CONTROL_STEPS=N another length (500
// by default under a sanitizer, where HEADSCOPE_SANITIZER is set); a failure prints the seed,
// the step and the last actions.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>

#include "headless_imgui.h"
#include "app/gui/work/frame_loop.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/panels.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/work/worker.h"
#include "core/model/synthetic_model.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

uint64_t env_number(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// Where a crash happened: written by the signal handler (async-signal-safe: one write()).
char g_where[512] = "control fuzz: not started\n";

extern "C" void on_fatal_signal(int sig) {
  const ssize_t n = write(2, g_where, std::strlen(g_where));
  (void)n;
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A message a person can act on: says something, and is not a library's internal text.
bool clear_message(const std::string& m) {
  for (const char* bad : {"std::", "basic_string", "_M_", "bad_alloc", "vector::", "stoi", "stof"})
    if (m.find(bad) != std::string::npos) return false;
  return m.size() >= 8;
}

class ControlFuzz : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "app" / "control_fuzz";
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    old_cwd_ = fs::current_path();
    fs::current_path(dir_);  // an Export... click writes here, not in the source tree
    hs::gui::test::start_headless_imgui(ImVec2(1600, 1000), ui_);
    ImGuiIO& io = ImGui::GetIO();
    // As the app's OpenGL 3 backend: large windows (a 1024-head grid) split their draw lists
    // instead of overflowing 16-bit indices.
    io.BackendFlags |= ImGuiBackendFlags_RendererHasVtxOffset;
    // GLFW's key codes, as the app's backend maps them.
    io.KeyMap[ImGuiKey_Tab] = 258, io.KeyMap[ImGuiKey_LeftArrow] = 263, io.KeyMap[ImGuiKey_RightArrow] = 262;
    io.KeyMap[ImGuiKey_UpArrow] = 265, io.KeyMap[ImGuiKey_DownArrow] = 264, io.KeyMap[ImGuiKey_PageUp] = 266;
    io.KeyMap[ImGuiKey_PageDown] = 267, io.KeyMap[ImGuiKey_Home] = 268, io.KeyMap[ImGuiKey_End] = 269;
    io.KeyMap[ImGuiKey_Backspace] = 259, io.KeyMap[ImGuiKey_Delete] = 261, io.KeyMap[ImGuiKey_Enter] = 257;
    io.KeyMap[ImGuiKey_Escape] = 256, io.KeyMap[ImGuiKey_A] = 'A';
    ui_.images = &images_;
    ui_.report = &report_;
    ui_.examples = &examples_;
    for (const std::string& name : shipped_lessons()) lessons_.push_back(find_lesson(name));
    ui_.lessons = &lessons_;
    state_ = default_app_state();
    state_.exporter.folder = dir_.string();
    state_.session.folder = dir_.string();
    loop_ = std::make_unique<FrameLoop>(state_, ui_, worker_);
    write_bad_files();
    std::signal(SIGSEGV, on_fatal_signal);
    std::signal(SIGABRT, on_fatal_signal);
    std::signal(SIGFPE, on_fatal_signal);
  }
  void TearDown() override {
    std::signal(SIGSEGV, SIG_DFL);
    std::signal(SIGABRT, SIG_DFL);
    std::signal(SIGFPE, SIG_DFL);
    loop_.reset();
    ImGui::DestroyContext();
    fs::current_path(old_cwd_);
  }

  static bool have_stories() { return fs::exists(kStories / "stories260K.bin") && fs::exists(kStories / "tok512.bin"); }

  void write(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary) << bytes; }

  std::string read(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }

  // Broken checkpoints and tokenizers: garbage, empty, truncated, impossible headers, folders.
  void write_bad_files() {
    std::mt19937 rng(7);
    std::string garbage(3000, '\0');
    for (char& c : garbage) c = char(rng());
    write(dir_ / "garbage.bin", garbage);
    write(dir_ / "empty.bin", "");
    bad_models_ = {(dir_ / "garbage.bin").string(), (dir_ / "empty.bin").string(), "/no/such/model.bin"};
    fs::create_directories(dir_ / "hf_garbage");
    write(dir_ / "hf_garbage" / "config.json", "{\"model_type\": \"gpt2\", \"n_embd\": -3, ");
    fs::create_directories(dir_ / "hf_empty");
    bad_models_.push_back((dir_ / "hf_garbage").string());
    bad_models_.push_back((dir_ / "hf_empty").string());
    if (!have_stories()) return;
    const std::string model = read(kStories / "stories260K.bin"), tok = read(kStories / "tok512.bin");
    for (size_t cut : {size_t(10), size_t(28), size_t(1000), model.size() / 2, model.size() - 4}) {
      const fs::path p = dir_ / ("truncated_" + std::to_string(cut) + ".bin");
      write(p, model.substr(0, cut));
      bad_models_.push_back(p.string());
    }
    // Header fields: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len (int32).
    const int32_t edits[][2] = {{0, 1 << 30}, {0, -8}, {2, 100000}, {3, 0}, {3, 7}, {4, 3}, {4, -1}, {5, 0},
                                {5, 1 << 30}, {6, 0}, {6, -5}, {1, 0}, {2, 0}};
    int i = 0;
    for (const auto& e : edits) {
      std::string m = model;
      std::memcpy(&m[size_t(e[0]) * 4], &e[1], 4);
      const fs::path p = dir_ / ("header_" + std::to_string(i++) + ".bin");
      write(p, m);
      bad_models_.push_back(p.string());
    }
    // A good checkpoint with a broken tokenizer beside it.
    fs::create_directories(dir_ / "bad_tok");
    write(dir_ / "bad_tok" / "model.bin", model);
    write(dir_ / "bad_tok" / "tokenizer.bin", tok.substr(0, tok.size() / 3));
    bad_models_.push_back((dir_ / "bad_tok" / "model.bin").string());
  }

  // One frame of the app, as main.cpp runs it. Returns true when it submitted a new request.
  bool frame(ImVec2 mouse = ImVec2(-FLT_MAX, -FLT_MAX), bool down = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = mouse;
    io.MouseDown[0] = down;
    report_.heatmaps.clear();
    report_.panels.clear();
    loop_->before_frame();
    ImGui::NewFrame();
    draw_app(state_, ui_);
    ImGui::Render();
    return loop_->after_frame();
  }

  // Frames until the worker is idle, its last result is taken and a frame changes nothing.
  // Bounded: a request that changes every frame is a failure, not a hang.
  void settle() {
    for (int i = 0; i < 12; ++i) {
      worker_.wait_idle();
      if (!frame() && !worker_.busy()) {
        worker_.wait_idle();
        if (!frame()) return;
      }
    }
    ADD_FAILURE() << "the request keeps changing: the app resubmits every frame";
  }

  // --- the random controls -------------------------------------------------------------------

  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng_)];
  }
  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

  std::string random_sentence() {
    static const std::vector<std::string> words = {"the", "keys", "that", "Priya", "left", "on", "table", "were",
                                                   "not", "hers", "Zoë's", "café", "Москва", "東京", "🙂", "a",
                                                   "—", "\"quoted\"", "x", "it's", "Lily", "saw", "cat", "\t"};
    switch (below(10)) {
      case 0: return "";
      case 1: return std::string(size_t(below(4)), ' ');
      case 2: {  // invalid UTF-8: stray continuation bytes, overlongs, surrogates, truncated sequences
        std::string s = "a ";
        for (int i = below(20); i >= 0; --i) s += char(0x80 + below(128)), s += coin() ? " " : "";
        s += "\xC0\xAF \xED\xA0\x80 \xF4\x90\x80\x80 \xE2\x82";
        return s;
      }
      case 3: {  // beyond the token limit
        std::string s;
        s.reserve(size_t(hs::kMaxTokens) * 2 + 200);
        for (int i = 0; i < hs::kMaxTokens + 1 + below(50); ++i) s += "w ";
        return s;
      }
      case 4: {  // control characters and NULs
        std::string s = "a";
        for (int i = below(10); i >= 0; --i) s += char(below(32)), s += 'b';
        return s;
      }
      default: {
        std::string s;
        for (int i = 1 + below(14); i > 0; --i) s += (s.empty() ? "" : " ") + pick(words);
        return s;
      }
    }
  }

  float random_temperature() {
    const std::vector<float> special = {1e-30f,
                                        1e-40f,  // denormal
                                        std::numeric_limits<float>::denorm_min(),
                                        FLT_MIN,
                                        0.0f,
                                        -0.0f,
                                        -1.0f,
                                        1e30f,
                                        FLT_MAX,
                                        std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity(),
                                        std::numeric_limits<float>::quiet_NaN(),
                                        hs::kMinTemperature,
                                        hs::kMaxTemperature,
                                        0.05f,
                                        5.0f,
                                        1.0f};
    if (coin(0.6)) return pick(special);
    return std::exp(std::uniform_real_distribution<float>(-8.0f, 8.0f)(rng_));
  }

  std::string random_session_text() {
    AppState s = default_app_state();
    s.request.attention.n_heads = pick(std::vector<int>{1, 2, 4, 8});
    s.request.sentence = random_sentence().substr(0, 200);
    s.head = below(20) - 5;
    std::string text = hs::session_to_json(session_from_state(s));
    switch (below(6)) {
      case 0: text = text.substr(0, size_t(below(int(text.size())))); break;  // truncated
      case 1:
        for (int i = below(8); i >= 0; --i) text[size_t(below(int(text.size())))] = char(below(256));  // flipped bytes
        break;
      case 2: text = "{\"format\": \"headscope-session\", \"version\": 1, \"model\": {\"d_model\": 8, \"heads\": 3}}"; break;
      case 3:
        text = "{\"format\": \"headscope-session\", \"version\": 1, \"model\": {\"temperature\": 1e300, \"window\": -7}, "
               "\"view\": {\"layer\": 2147483647, \"head\": -2147483648, \"queries\": [-1, 99999999]}}";
        break;
      case 4: text = "{\"format\": \"headscope-session\", \"version\": 99}"; break;
      default: break;  // a good one
    }
    return text;
  }

  // Does one random thing a person (or a file) could do; returns what, for the failure report.
  std::string act() {
    hs::AttentionConfig& c = state_.request.attention;
    std::ostringstream what;
    const int choice = below(27);
    const size_t at = std::strlen(g_where);
    std::snprintf(g_where + at, sizeof g_where - at, "  during action %d (see act())\n", choice);
    switch (choice) {
      case 0: case 1: {
        const int h = coin(0.8) ? pick(head_count_options(c.d_model)) : below(2000) - 10;
        set_heads(c, h);
        what << "heads " << h;
        break;
      }
      case 2: {
        const int g = coin(0.8) ? pick(kv_group_options(c.n_heads)) : below(40) - 3;
        c.n_kv_heads = g;  // as the key/value table (or a session) writes it
        what << "kv groups " << g;
        break;
      }
      case 3: case 4: {
        const int d = coin(0.85) ? 1 + below(64) : pick(std::vector<int>{0, -5, 96, 128, 1024, 5000, INT32_MAX});
        set_d_model(c, d);
        what << "d_model " << d;
        break;
      }
      case 5: {
        const bool on = coin();
        set_decoupled(c, on);
        if (on && coin()) c.d_head = 1 + below(80);
        what << "decoupled " << on << " d_head " << c.d_head;
        break;
      }
      case 6: {
        c.window = pick(std::vector<int>{-1, -1, 0, 1, 2, 5, 16, 1000, -3});
        if (c.window >= 0) state_.model.window_size = c.window;
        what << "window " << c.window;
        break;
      }
      case 7: c.causal = !c.causal, what << "causal " << c.causal; break;
      case 8: case 9: {
        c.temperature = random_temperature();
        what << "temperature " << c.temperature;
        break;
      }
      case 10: case 11: {
        state_.request.sentence = random_sentence();
        state_.request.input_npy.clear();
        what << "sentence of " << state_.request.sentence.size() << " bytes";
        break;
      }
      case 12: {
        const View v = View(below(6));
        request_view(state_, v);
        if (coin(0.2)) state_.grid.all_layers = !state_.grid.all_layers;
        what << "view " << int(v);
        break;
      }
      case 13: {
        const std::vector<int> far = {-1, 0, 1, 3, 7, 8, 100, -100000, INT32_MAX, INT32_MIN};
        state_.head = pick(far), state_.layer = pick(far);
        state_.query.queries = {pick(far), pick(far)};
        state_.difference.pair_a = pick(far), state_.difference.pair_b = pick(far);
        what << "select head " << state_.head << " layer " << state_.layer;
        break;
      }
      case 14: {
        state_.scale.mode = hs::ScaleMode(below(3));
        state_.scale.ignore_first_key = coin();
        state_.scale.colormap = pick(hs::all_colormaps());
        state_.head_view.show_values = coin(0.3);
        what << "scale " << int(state_.scale.mode) << " colormap " << hs::colormap_name(state_.scale.colormap);
        break;
      }
      case 15: state_.request.seed = rng_(), what << "seed"; break;
      case 16: {  // shapes no control offers, as a hand-edited session or lesson could hold
        c.d_model = pick(std::vector<int>{8, 7, 12, 0, -1});
        c.n_heads = pick(std::vector<int>{3, 5, 0, -2, 4, 2000});
        c.n_kv_heads = pick(std::vector<int>{0, 3, -1, 2});
        c.d_head = pick(std::vector<int>{0, 0, -4, 3});
        what << "raw shape d_model " << c.d_model << " heads " << c.n_heads << " kv " << c.n_kv_heads << " d_head "
             << c.d_head;
        break;
      }
      case 17: case 18: {  // the mouse: a click or a drag somewhere
        const ImVec2 a(float(below(1600)), float(below(1000)));
        const ImVec2 b(std::clamp(a.x + float(below(200) - 100), 0.0f, 1599.0f), a.y + float(below(40) - 20));
        ImGui::GetIO().KeyCtrl = coin(0.15);
        frame(a);
        frame(a, true);
        if (coin(0.3)) frame(b, true);
        frame(coin(0.3) ? b : a, false);
        ImGui::GetIO().KeyCtrl = false;
        what << "mouse at " << a.x << "," << a.y;
        break;
      }
      case 19: {  // keys and typed text (wherever the keyboard focus is)
        ImGuiIO& io = ImGui::GetIO();
        const std::vector<int> keys = {262, 263, 264, 265, 266, 267, 268, 269, 259, 261, 257, 256, 'C', 294, 'L'};
        const int key = pick(keys);
        io.KeyCtrl = coin(0.2) && key != 'Q';
        io.KeysDown[key] = true;
        frame();
        io.KeysDown[key] = false;
        if (coin(0.5)) {
          std::string text;
          for (int i = below(6); i >= 0; --i) text += char(32 + below(200));
          io.AddInputCharactersUTF8(text.c_str());
        }
        frame();
        io.KeyCtrl = false;
        what << "key " << key;
        break;
      }
      case 20: case 21: {  // open a broken checkpoint through the model panel's boxes
        const std::shared_ptr<const Derived> before = loop_->shown();
        const std::string path = pick(bad_models_);
        state_.open_model.path = path;
        state_.open_model.tokenizer = coin(0.3) ? pick(bad_models_) : tokenizer_beside(path);
        open_model_from_boxes(state_);
        what << "open broken model " << path;
        settle();
        expect_previous_model_kept(before, path);
        break;
      }
      case 22: {  // open the real checkpoint, or go back to the synthetic model
        if (have_stories() && coin(0.7)) {
          state_.open_model.path = (kStories / "stories260K.bin").string();
          state_.open_model.tokenizer = tokenizer_beside(state_.open_model.path);
          open_model_from_boxes(state_);
          if (coin(0.5)) state_.request.generate = pick(std::vector<int>{0, 1, 5, 40, kMaxGenerate});
          if (state_.request.sentence.size() > 400) state_.request.sentence = "Lily saw a cat";
          what << "open stories260K, generate " << state_.request.generate;
        } else {
          state_.request.model_path.clear();
          state_.request.tokenizer.clear();
          state_.request.generate = 0;
          state_.open_model.checkpoint = false;
          what << "synthetic model";
        }
        break;
      }
      case 23: {  // a session file: broken, impossible or good, dropped on the window
        const fs::path p = dir_ / ("session_" + std::to_string(below(4)) + ".json");
        write(p, random_session_text());
        state_.commands.push(OpenFiles{{p.string()}});
        what << "drop session " << p.filename().string();
        break;
      }
      case 24: {  // lessons
        if (!state_.lesson.lesson || coin(0.3)) {
          ask_action(state_, lesson_action(pick(lessons_), below(10) - 1));
          what << "start lesson";
        } else if (coin(0.8)) {
          go_to_step(state_, state_.lesson.step + below(5) - 2);
          what << "lesson step " << state_.lesson.step;
        } else {
          stop_lesson(state_);
          what << "leave lesson";
        }
        break;
      }
      case 25: {  // menus that replace the session: new, quit, save
        const int k = below(4);
        if (k == 0) ask_action(state_, reset_action()), what << "new session";
        if (k == 1) ask_action(state_, quit_action()), what << "quit";
        if (k == 2) state_.session.dialog = SessionDialog::save, state_.session.file_name = "saved.json", what << "save dialog";
        if (k == 3) state_.present.active = !state_.present.active, what << "presentation " << state_.present.active;
        break;
      }
      default: {  // answer whatever dialog is up
        if (unsaved_popup_wanted(state_)) {
          const UnsavedChoice answer = UnsavedChoice(below(3));
          answer_unsaved(state_, answer);
          what << "popup answer " << int(answer);
        } else if (state_.session.dialog != SessionDialog::none) {
          if (coin(0.7) && state_.session.dialog == SessionDialog::save) state_.commands.push(SaveSession{});
          state_.session.file_name = "saved.json";
          state_.session.dialog = SessionDialog::none;
          what << "dialog closed";
        } else {
          what << "nothing to answer";
        }
        break;
      }
    }
    return what.str();
  }

  // --- the invariants ------------------------------------------------------------------------

  void expect_previous_model_kept(const std::shared_ptr<const Derived>& before, const std::string& path) {
    const std::shared_ptr<const Derived>& now = loop_->shown();
    if (!before || !now) return;
    if (before->analysis->request.model_path.empty() && before->analysis->request.weights.empty()) {
      // A broken file never becomes the shown model.
      EXPECT_NE(now->analysis->request.model_path, path) << "a broken model is on screen";
    }
    if (now->analysis->request.model_path == path) {
      ADD_FAILURE() << path << " opened as a model: " << now->run().info.kind;
      return;
    }
    EXPECT_EQ(state_.request.model_path, now->analysis->request.model_path) << "the failed model must not stay in the request";
    EXPECT_FALSE(ui_.status.error.empty()) << "opening " << path << " failed without a word in the status line";
    EXPECT_TRUE(clear_message(ui_.status.error)) << ui_.status.error;
    EXPECT_EQ(now->run().info.kind, before->run().info.kind) << "the model on screen changed after a failed open";
  }

  void check_result(const Derived& d) {
    const hs::AttentionRun& run = d.run();
    const int T = run.n_tokens(), L = run.n_layers(), H = run.n_heads();
    ASSERT_GT(L, 0);
    ASSERT_GT(H, 0);
    ASSERT_EQ(run.info.n_heads, H);
    ASSERT_GT(run.info.n_kv_heads, 0);
    EXPECT_EQ(H % run.info.n_kv_heads, 0) << "key/value groups must divide the heads";
    if (run.info.kind == "synthetic") {
      EXPECT_NO_THROW(d.analysis->request.attention.validate());
      if (!d.analysis->request.attention.decoupled_width() && d.analysis->request.attention.d_head == 0) {
        EXPECT_EQ(run.info.d_model % H, 0) << "heads must divide d_model";
      }
    }
    ASSERT_EQ(d.analysis->difference.size(), size_t(L));
    ASSERT_EQ(d.analysis->average.size(), size_t(L));
    for (int l = 0; l < L; ++l) {
      ASSERT_EQ(run.attention[size_t(l)].size(), size_t(H)) << "layer " << l;
      ASSERT_EQ(d.analysis->difference[size_t(l)].rows(), H);
      ASSERT_EQ(d.analysis->difference[size_t(l)].cols(), H);
      for (int h = 0; h < H; ++h) {
        const hs::Map& a = run.attention[size_t(l)][size_t(h)];  // [T, T], rows sum to 1
        ASSERT_EQ(a.rows(), T) << "layer " << l << " head " << h;
        ASSERT_EQ(a.cols(), T) << "layer " << l << " head " << h;
        ASSERT_TRUE(a.allFinite()) << "layer " << l << " head " << h;
        ASSERT_GE(a.minCoeff(), 0.0f) << "layer " << l << " head " << h;
        for (int i = 0; i < T; ++i) {
          const double sum = a.row(i).cast<double>().sum();
          ASSERT_NEAR(sum, 1.0, 1e-4) << "layer " << l << " head " << h << " row " << i;
          if (run.info.causal) {
            for (int j = i + 1; j < T; ++j) ASSERT_EQ(a(i, j), 0.0f) << "masked cell (" << i << ", " << j << ")";
          }
        }
      }
      const hs::Map& avg = d.analysis->average[size_t(l)];  // [T, T]
      ASSERT_EQ(avg.rows(), T);
      for (int i = 0; i < T; ++i) ASSERT_NEAR(avg.row(i).cast<double>().sum(), 1.0, 1e-4) << "average row " << i;
    }
  }

  void check_invariants() {
    const std::shared_ptr<const Derived>& shown = loop_->shown();
    const bool current = shown && same_model_request(shown->analysis->request, state_.request);
    if (!current) {
      EXPECT_FALSE(ui_.status.error.empty()) << "the request was not shown and the status line says nothing";
    }
    if (!ui_.status.error.empty()) {
      EXPECT_TRUE(clear_message(ui_.status.error)) << ui_.status.error;
    }
    if (shown) {
      // draw_app fits the selection to what is shown.
      EXPECT_GE(state_.head, 0);
      EXPECT_LT(state_.head, std::max(shown->run().n_heads(), 1));
      EXPECT_GE(state_.layer, 0);
      EXPECT_LT(state_.layer, std::max(shown->run().n_layers(), 1));
      for (int q : state_.query.queries) {
        EXPECT_GE(q, 0);
        EXPECT_LT(q, std::max(shown->run().n_tokens(), 1));
      }
      if (shown->generation != checked_generation_ || shown.get() != checked_) {
        checked_generation_ = shown->generation;
        checked_ = shown.get();
        check_result(*shown);
      }
    }
    if (state_.unsaved.quit) {
      EXPECT_FALSE(unsaved_popup_wanted(state_));
      state_.unsaved.quit = false;  // the app would end here; the test carries on
    }
  }

  fs::path dir_, old_cwd_;
  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
  std::vector<std::string> examples_ = {"the cat sat", "Zoë's café — Москва"};
  std::vector<std::shared_ptr<const hs::Lesson>> lessons_;
  AppState state_;
  DerivedWorker worker_;
  std::unique_ptr<FrameLoop> loop_;
  std::vector<std::string> bad_models_;
  std::mt19937_64 rng_;
  uint64_t checked_generation_ = 0;
  const Derived* checked_ = nullptr;
};

TEST_F(ControlFuzz, RandomControlsKeepTheAppValid) {
  const uint64_t seed = env_number("HEADSCOPE_CONTROL_SEED", 20240611);
  // Under a sanitizer (tests/sanitize.sh) every step is 10-20x slower and the later, larger
  // models slower still: 1500 steps took 11 minutes, so the sanitized suite runs the first 500.
  const bool sanitized = std::getenv("HEADSCOPE_SANITIZER") != nullptr;
  const int steps = int(env_number("HEADSCOPE_CONTROL_STEPS", sanitized ? 500 : 1500));
  rng_.seed(seed);
  std::printf("control fuzz: seed %llu, %d steps%s%s (HEADSCOPE_CONTROL_SEED / _STEPS to change)\n",
              static_cast<unsigned long long>(seed), steps, have_stories() ? "" : ", without stories260K",
              sanitized ? ", fewer under a sanitizer" : "");
  settle();
  std::deque<std::string> recent;
  const bool verbose = env_number("HEADSCOPE_CONTROL_VERBOSE", 0) != 0;  // each step and its time
  for (int step = 0; step < steps; ++step) {
    const auto start = std::chrono::steady_clock::now();
    std::snprintf(g_where, sizeof g_where, "control fuzz crashed: seed %llu, step %d (HEADSCOPE_CONTROL_SEED=%llu)\n",
                  static_cast<unsigned long long>(seed), step, static_cast<unsigned long long>(seed));
    std::string what;
    try {
      what = act();
      recent.push_back(std::to_string(step) + ": " + what);
      if (recent.size() > 12) recent.pop_front();
      settle();
      check_invariants();
      if (verbose)
        std::printf("%d: %s (%.0f ms)\n", step, what.c_str(),
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "exception escaped: " << e.what();
    } catch (...) {
      ADD_FAILURE() << "unknown exception escaped";
    }
    if (HasFailure()) {
      std::string log;
      for (const std::string& r : recent) log += "  " + r + "\n";
      FAIL() << "seed " << seed << ", step " << step << " (" << what << "); rerun with HEADSCOPE_CONTROL_SEED=" << seed
             << "\nlast actions:\n"
             << log << "status: " << ui_.status.error;
    }
  }
  std::snprintf(g_where, sizeof g_where, "control fuzz: finished\n");
}

}  // namespace
