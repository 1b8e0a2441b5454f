// The Contrast view with a second model (issue 51), headless: model B is stories260K with its
// token embeddings perturbed (a stand-in for a fine-tune: same tokenizer, same shapes, another
// file). The app's comparison is core's run_model_pair (the code path of `headscope-cli compare
// --model-b`), its table draws those numbers, File > Export writes what compare --out writes,
// sessions keep model B (old ones still load without it), and refusals (a missing file, another
// family) and a cancel come back as text, never a crash. The window-level test against the CLI's
// JSON is tests/gl/model_pair_app.py.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

#include "app/gui/actions/export_action.h"
#include "app/gui/actions/session_bridge.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/drawn_text.h"
#include "app/gui/state/selection.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/worker.h"
#include "core/analysis/model_pair_run.h"
#include "core/export/contrast_export.h"
#include "core/session/session_file.h"
#include "core/util/format.h"
#include "core/util/runtime_config.h"
#include "headless_app.h"

namespace {

using namespace hs::gui;
namespace fs = std::filesystem;

const fs::path kStoriesDir = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

// stories260K.bin with the token embedding table (right after llama2.c's 7-int header) scaled
// by 1 + N(0, 0.3) per value: every head's rows move a little, the vocabulary stays.
fs::path perturbed_stories(const fs::path& dir) {
  std::ifstream in(kStoriesDir / "stories260K.bin", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int32_t header[7];
  std::memcpy(header, bytes.data(), sizeof header);
  const int32_t dim = header[0], vocab = std::abs(header[5]);
  float* embedding = reinterpret_cast<float*>(bytes.data() + sizeof header);
  std::mt19937 rng(51);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  for (int64_t i = 0; i < int64_t(dim) * vocab; ++i) embedding[i] *= 1.0f + noise(rng);
  const fs::path out = dir / "stories260K_tuned.bin";
  std::ofstream(out, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return out;
}

class ModelPairView : public test::HeadlessApp {
 protected:
  ModelPairView() : HeadlessApp(ImVec2(1280, 720)) {}
  void SetUp() override {
    HeadlessApp::SetUp();
    ASSERT_TRUE(fs::exists(kStoriesDir / "stories260K.bin")) << "stories260K is in assets/models: " << kStoriesDir;
    dir_ = fs::temp_directory_path() / ("hs_model_pair_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    tuned_ = perturbed_stories(dir_);
  }
  void TearDown() override {
    fs::remove_all(dir_);
    HeadlessApp::TearDown();
  }
  AppState pair_state(const std::string& model_b) const {
    AppState s = default_app_state();
    s.request.model_path = (kStoriesDir / "stories260K.bin").string();
    s.request.tokenizer = (kStoriesDir / "tok512.bin").string();
    s.request.sentence = "Once upon a time, there was a little girl named Lily.";
    s.contrast.model_b = model_b;
    request_view(s, hs::View::contrast);
    return s;
  }
  // The result the worker would hand back for `state` (with model B's comparison).
  void show(AppState& state) {
    derived_ = compute_derived(state.request, 1, &cache_a_);
    derived_->contrast = compute_model_contrast(state.request, contrast_ask(state), 1, &cache_a_, &cache_b_);
    ui_.derived = derived_.get();
    select_most_changed_model_head(state, *derived_);
  }
  // Every text the last frame drew.
  std::vector<std::string> texts() const {
    std::vector<std::string> out;
    for (const DrawnText& t : collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts)) out.push_back(t.text);
    return out;
  }
  bool drew(const std::string& part) const {
    for (const std::string& t : texts())
      if (t.find(part) != std::string::npos) return true;
    return false;
  }

  fs::path dir_, tuned_;
  hs::CheckpointCache cache_a_, cache_b_;
  std::shared_ptr<Derived> derived_;
};

TEST_F(ModelPairView, ShowsTheNumbersOfTheClisCodePath) {
  AppState state = pair_state(tuned_.string());
  show(state);
  const ContrastRun& c = *derived_->contrast;
  ASSERT_TRUE(c.analysis) << c.error;
  // The CLI's path: run_model_pair on the same requests, one cache for both.
  hs::CheckpointCache cache;
  hs::ModelPairOptions options;
  options.threads = 1;
  options.checkpoints_a = options.checkpoints_b = &cache;
  hs::ModelRequest a = state.request;
  a.fit_context = true;
  const hs::ModelPairRun want = hs::run_model_pair(a, hs::model_b_request(a, tuned_.string(), ""), options);
  ASSERT_EQ(c.result.heads.size(), want.contrast.heads.size());
  float largest = 0;
  for (size_t l = 0; l < want.contrast.heads.size(); ++l)
    for (size_t h = 0; h < want.contrast.heads[l].size(); ++h) {
      EXPECT_EQ(c.result.heads[l][h].distance, want.contrast.heads[l][h].distance) << "L" << l << " h" << h;
      largest = std::max(largest, want.contrast.heads[l][h].distance);
    }
  EXPECT_GT(largest, 0.01f) << "the perturbed embeddings move the heads";
  EXPECT_EQ(c.models.next_token.top1_matches, want.comparison.next_token.top1_matches);
  EXPECT_EQ(c.models.next_token.mean_kl, want.comparison.next_token.mean_kl);
  EXPECT_FALSE(c.models.same_file);
  // Opens on the most changed head; the table's first row is it, its change to 4 decimals.
  const std::vector<std::vector<int>> ranks = hs::change_ranks(want.contrast);
  EXPECT_EQ(ranks[size_t(state.layer)][size_t(state.head)], 1);
  frame(state);
  frame(state);
  char first[32];
  std::snprintf(first, sizeof first, "%.4f", double(want.contrast.heads[size_t(state.layer)][size_t(state.head)].distance));
  EXPECT_TRUE(drew(first)) << "the most changed head's change " << first;
  EXPECT_TRUE(drew(hs::format("the same top-1 after %d of %d positions", want.comparison.next_token.top1_matches,
                              want.comparison.next_token.positions)));
  for (const char* key : {"contrast a", "contrast b", "contrast diff", "contrast change"}) EXPECT_NE(drawn(key), nullptr) << key;
  ASSERT_NE(drawn("contrast a"), nullptr);
  EXPECT_EQ(drawn("contrast a")->range.hi, drawn("contrast b")->range.hi) << "A and B on one scale";
  EXPECT_EQ(drawn("contrast a")->layer, state.layer);
  // File > Export writes what `compare --model-b --out` writes (JSON and CSV: core's bytes of the CLI's run).
  for (const char* ext : {"json", "csv"}) {
    state.exporter.folder = dir_.string();
    state.exporter.file_name = std::string("pair.") + ext;
    const std::string wrote = save_export(state, *derived_);
    const std::string path = (dir_ / state.exporter.file_name).string();
    EXPECT_EQ(wrote, "wrote " + path);
    std::ifstream f(path);
    const std::string got((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    hs::ContrastExport e;
    e.path = path;
    e.layer = state.layer, e.head = state.head;
    e.models = &want.comparison;
    const std::string expected = hs::contrast_export_bytes(*want.a, *want.b, want.contrast, e);
    EXPECT_EQ(got, expected) << ext;
    if (std::string(ext) == "json") {
      EXPECT_NE(got.find("\"mode\":\"models\""), std::string::npos);
    }
  }
}

TEST_F(ModelPairView, TheSameFileTwiceSaysIdentical) {
  AppState state = pair_state((kStoriesDir / "stories260K.bin").string());
  state.contrast.tokenizer_b = state.request.tokenizer;
  show(state);
  ASSERT_TRUE(derived_->contrast->analysis) << derived_->contrast->error;
  EXPECT_TRUE(derived_->contrast->models.same_file);
  EXPECT_EQ(derived_->contrast->result.distance_grid().cwiseAbs().maxCoeff(), 0.0f);
  frame(state);
  frame(state);
  EXPECT_TRUE(drew("identical: change 0 everywhere"));
}

TEST_F(ModelPairView, SessionsKeepModelB) {
  AppState state = pair_state(tuned_.string());
  state.contrast.tokenizer_b = (kStoriesDir / "tok512.bin").string();
  const std::string text = hs::session_to_json(session_from_state(state));
  AppState back = default_app_state();
  apply_session(back, hs::parse_session(text, "pair.json"));
  EXPECT_EQ(back.contrast.model_b, tuned_.string());
  EXPECT_EQ(back.contrast.tokenizer_b, state.contrast.tokenizer_b);
  EXPECT_EQ(back.view, hs::View::contrast);
  EXPECT_TRUE(contrast_ask(back) == contrast_ask(state));
  EXPECT_EQ(hs::session_to_json(session_from_state(back)), text);
  // A session without model B (every file written before it) opens without one.
  AppState plain = default_app_state();
  apply_session(plain, hs::parse_session(hs::session_to_json(session_from_state(default_app_state())), "old.json"));
  EXPECT_TRUE(plain.contrast.model_b.empty());
}

TEST_F(ModelPairView, RefusalsAndCancelComeBackAsText) {
  struct Case {
    std::string model_b, phrase;
  };
  for (const Case& k : {Case{(dir_ / "missing.gguf").string(), "model B ("}, Case{"teaching", "different families"}}) {
    AppState state = pair_state(k.model_b);
    show(state);
    const ContrastRun& c = *derived_->contrast;
    EXPECT_EQ(c.analysis, nullptr) << k.model_b;
    EXPECT_NE(c.error.find(k.phrase), std::string::npos) << c.error;
    frame(state);
    frame(state);
    EXPECT_TRUE(drew("Could not compare with model B")) << k.model_b;
    // Export refuses with the reason instead of writing something else.
    state.exporter.folder = dir_.string();
    state.exporter.file_name = "refused.json";
    EXPECT_THROW(save_export(state, *derived_), hs::InputError);
    EXPECT_FALSE(fs::exists(dir_ / "refused.json"));
  }
  // Cancelled inside model B's run (a newer request came): said, nothing shown as a result.
  // stories260K: 12 steps (A read, its 5 layers, B read, its 5 layers).
  AppState state = pair_state(tuned_.string());
  std::vector<int> seen;
  auto c = compute_model_contrast(state.request, contrast_ask(state), 1, &cache_a_, &cache_b_, [&](int done, int total) {
    seen.push_back(done);
    return total == 12 && done < 9;
  });
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 9) << "stopped at the first step past 8: the third layer of model B";
  EXPECT_EQ(c->analysis, nullptr);
  EXPECT_NE(c->error.find("cancelled"), std::string::npos) << c->error;
}

// Two models over the memory budget (HEADSCOPE_MEMORY_BUDGET): refused before model B is read,
// with both files' needs, the budget and the memory available; model A stays open and on screen.
TEST_F(ModelPairView, OverTheMemoryBudgetIsRefusedBeforeReading) {
  const hs::RuntimeConfig saved = hs::runtime_config();
  hs::RuntimeConfig tight = saved;
  tight.memory_budget = "1M";
  tight.memory_budget_source = "HEADSCOPE_MEMORY_BUDGET";
  hs::set_runtime_config(tight);
  AppState state = pair_state(tuned_.string());
  show(state);
  hs::set_runtime_config(saved);
  const ContrastRun& c = *derived_->contrast;
  EXPECT_EQ(c.analysis, nullptr);
  for (const std::string& part : {std::string("do not fit in memory"), "model A (" + state.request.model_path + ") needs about",
                                  "model B (" + tuned_.string() + ") needs about", std::string("both open"),
                                  std::string("the memory budget is 1.0 MiB (HEADSCOPE_MEMORY_BUDGET)"), std::string(" is available (")})
    EXPECT_NE(c.error.find(part), std::string::npos) << "missing \"" << part << "\" in: " << c.error;
  EXPECT_EQ(cache_b_.loads(), 0) << "model B is not read";
  ASSERT_TRUE(derived_->analysis) << "model A's run stays";
  frame(state);
  frame(state);
  EXPECT_TRUE(drew("Could not compare with model B"));
}

// While model B is read and run the view shows the worker's steps as a fraction (a spinner only
// until the first step is reported), with Cancel beside it.
TEST_F(ModelPairView, ShowsTheStepsWhileComparing) {
  AppState state = pair_state(tuned_.string());
  derived_ = compute_derived(state.request, 1, &cache_a_);  // model A's result, model B's not yet
  ui_.derived = derived_.get();
  ui_.status.computing = true;
  ui_.status.work_done = 7, ui_.status.work_total = 12;
  frame(state);
  frame(state);
  EXPECT_TRUE(drew("7 / 12"));
  EXPECT_TRUE(drew("comparing with model B"));
  EXPECT_TRUE(drew("Cancel"));
  ui_.status.work_total = 0;
  frame(state);
  EXPECT_FALSE(drew("7 / 12"));
}

// The view's Cancel (a newer request without model B, submitted while B's layers run) stops the
// comparison between two layers of model B; the worker's next result is model A's alone, the
// same maps as before, and the view draws them with no comparison.
TEST_F(ModelPairView, CancelMidRunKeepsModelA) {
  AppState state = pair_state(tuned_.string());
  DerivedWorker worker(1);
  std::vector<int> seen;
  int total = 0;
  worker.on_model_pair_step([&](int done, int all) {
    seen.push_back(done), total = all;
    if (done == 9) {  // model B read, two of its layers run
      AppState cancelled = state;
      cancelled.contrast.model_b.clear();
      worker.submit(cancelled.request, {}, false, contrast_ask(cancelled));
    }
  });
  const ContrastAsk ask = contrast_ask(state);
  ASSERT_TRUE(ask.models());
  const uint64_t first = worker.submit(state.request, {}, false, ask);
  worker.wait_idle();
  const std::optional<WorkerResult> r = worker.poll();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->generation, first + 1) << "the comparison's result is discarded";
  ASSERT_TRUE(r->derived) << r->error;
  EXPECT_EQ(total, 12);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), 9) << "no step after the cancel: it stopped inside model B's run";
  EXPECT_FALSE(r->derived->contrast && r->derived->contrast->is_models());
  // Model A's maps, unchanged by the cancelled comparison.
  const auto alone = compute_derived(state.request, 1);
  const auto& got = r->derived->run().attention;
  const auto& want = alone->run().attention;
  ASSERT_EQ(got.size(), want.size());
  for (size_t l = 0; l < got.size(); ++l)
    for (size_t h = 0; h < got[l].size(); ++h)
      EXPECT_EQ((got[l][h] - want[l][h]).cwiseAbs().maxCoeff(), 0.0f) << "layer " << l << " head " << h;
  state.contrast.model_b.clear();
  ui_.derived = r->derived.get();
  frame(state);
  frame(state);
  EXPECT_FALSE(drew("Could not compare with model B"));
  EXPECT_FALSE(drew("comparing with model B"));
}

}  // namespace
