// The Contrast view's activation patching, headless: it runs off the UI thread (a job shell with
// progress) on the two runs on screen, waits for sentence B's result, draws its layers x heads grid
// with the numbers core gives for the same pair, goes stale when a continuation changes, stops
// when sentence B changes, and shows nothing for a model that predicts no next token.
// stories260K comes from ${HEADSCOPE_MODELS_DIR}; those tests skip when it is absent.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cmath>
#include <filesystem>

#include "app/gui/panels/panels.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/patching_job.h"
#include "app/gui/work/run_commands.h"
#include "core/analysis/pair_target.h"
#include "headless_app.h"

namespace {

using namespace hs::gui;
using hs::View;
namespace fs = std::filesystem;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

bool have_stories() { return fs::exists(kStories / "stories260K.bin") && fs::exists(kStories / "tok512.bin"); }

class PatchingView : public test::HeadlessApp {
 protected:
  PatchingView() : HeadlessApp(ImVec2(1280, 720)) {}
  // The result the worker would hand back for `state`, with sentence B's run when it has one.
  void show(AppState& state, hs::CheckpointCache* cache, bool with_contrast = true) {
    derived_ = compute_derived(state.request, 1, cache);
    if (with_contrast) derived_->contrast = compute_contrast(state.request, state.contrast.sentence, *derived_->analysis, 1, cache);
    ui_.derived = derived_.get();
  }
  void run(AppState& state, PatchingJob& job) {
    CommandTargets targets;
    targets.shown = derived_.get();
    targets.patching_job = &job;
    run_commands(state, ui_.status, targets);
  }

  std::shared_ptr<Derived> derived_;
};

AppState pair_state() {
  AppState s = default_app_state();
  s.request.model_path = (kStories / "stories260K.bin").string();
  s.request.tokenizer = (kStories / "tok512.bin").string();
  s.request.sentence = "Once upon a time, there was a boy. One day,";
  s.contrast.sentence = "Once upon a time, there was a girl. One day,";
  s.contrast.target = " he";
  s.contrast.versus = " she";
  request_view(s, View::contrast);
  return s;
}

TEST_F(PatchingView, RunsOffTheUiThreadAndDrawsTheSharesCoreGives) {
  if (!have_stories()) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  hs::CheckpointCache cache;
  PatchingJob job(&cache, 2);
  AppState state = pair_state();
  show(state, &cache, false);
  state.commands.push(RunPatching{});
  run(state, job);
  EXPECT_FALSE(state.commands.empty()) << "waits for sentence B's result";
  EXPECT_FALSE(job.busy());
  show(state, &cache);
  frame(state);
  EXPECT_EQ(drawn("contrast patching"), nullptr) << "nothing run yet";
  run(state, job);
  EXPECT_TRUE(state.commands.empty());
  job.wait_idle();
  ui_.patching = job.status();
  ASSERT_TRUE(ui_.patching.result) << ui_.patching.error;
  const hs::PairAnswer& p = *ui_.patching.result;
  ASSERT_TRUE(p.patching);
  EXPECT_TRUE(p.patching->complete);
  EXPECT_EQ(ui_.patching.done, 40);
  EXPECT_EQ(ui_.patching.total, 40);
  // The same numbers as core on the same pair (the CLI's path).
  const hs::PairAnswer want = hs::answer_pair(*derived_->analysis, *derived_->contrast->analysis, derived_->contrast->result,
                                              hs::PairQuestion{" he", " she", true}, {}, &cache);
  EXPECT_EQ(p.logit_diff_a, want.logit_diff_a);
  EXPECT_EQ(p.logit_diff_b, want.logit_diff_b);
  EXPECT_LT((p.patching->share - want.patching->share).cwiseAbs().maxCoeff(), 1e-6f);
  frame(state);
  frame(state);
  const DrawnHeatmap* map = drawn("contrast patching");
  ASSERT_NE(map, nullptr) << "the layers x heads grid of shares";
  EXPECT_EQ(map->rows, 5);
  EXPECT_EQ(map->cols, 8);
  EXPECT_TRUE(map->range.diverging) << "signed shares, 0 in the middle";
  EXPECT_LE(map->max.x, 1280.0f) << "inside the window";
  // Another continuation: the shares are not shown as current until run again.
  state.contrast.versus = " it";
  frame(state);
  EXPECT_EQ(drawn("contrast patching"), nullptr);
  EXPECT_EQ(cache.loads(), 1) << "the job shares the open checkpoint";
}

TEST_F(PatchingView, ANewSentenceBStopsARunningJob) {
  if (!have_stories()) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  hs::CheckpointCache cache;
  PatchingJob job(&cache, 1);
  AppState state = pair_state();
  show(state, &cache);
  job.start(derived_->analysis, derived_->contrast, hs::PairQuestion{" he", " she", true});
  state.contrast.sentence += " Then";
  run(state, job);
  job.wait_idle();
  const PatchingStatus st = job.status();
  ASSERT_TRUE(st.result) << st.error;
  EXPECT_FALSE(st.result->patching->complete);
}

TEST_F(PatchingView, TheSyntheticLayerShowsNoPatchingAndRunsNothing) {
  PatchingJob job(nullptr, 1);
  AppState state = default_app_state();
  state.contrast.sentence = "the dog sat";
  state.contrast.target = " on", state.contrast.versus = " in";
  request_view(state, View::contrast);
  show(state, nullptr);
  EXPECT_FALSE(patching_unavailable(*derived_->analysis, derived_->contrast.get(), {" on", " in", true}).empty());
  state.commands.push(RunPatching{});
  run(state, job);
  EXPECT_FALSE(job.busy());
  EXPECT_FALSE(job.status().result);
  frame(state);
  EXPECT_EQ(drawn("contrast patching"), nullptr);
}

}  // namespace
