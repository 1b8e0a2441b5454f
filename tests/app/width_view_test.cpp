// The Head width view's pattern fit off the UI thread (app/gui/work/fit_job.h) and its panel
// parts headless: the fit is made for the pattern and result asked, progress reaches its total,
// Cancel keeps the widths finished, a refused pattern comes back as its reason; the keys part
// draws one map per head, the pattern part asks for a fit (FitPattern) until one is there.
#include <gtest/gtest.h>

#include "app/gui/panels/panels.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/fit_job.h"
#include "headless_imgui.h"

namespace hs::gui {
namespace {

std::shared_ptr<const RunAnalysis> lesson_run() {
  ModelRequest r;
  r.sentence = "the keys that Priya left on the table were not hers";
  r.attention.d_model = 8;
  r.attention.n_heads = 8;
  return analyse(r);
}

TEST(FitJob, FitsThePatternAskedForTheResultAsked) {
  FitJob job;
  job.start("previous", lesson_run(), 7);
  job.wait_idle();
  const FitStatus s = job.status();
  EXPECT_FALSE(s.running);
  EXPECT_TRUE(s.is_for("previous", 7));
  EXPECT_FALSE(s.is_for("first", 7));
  ASSERT_TRUE(s.result);
  EXPECT_EQ(s.title, "previous token");
  EXPECT_EQ(s.done, s.total);
  EXPECT_EQ(s.result->fits.size(), 5u);
  EXPECT_GT(s.result->fits.front().error, 0.5f);
  EXPECT_LT(s.result->fits.back().error, 0.01f);
}

TEST(FitJob, ARefusedPatternComesBackAsItsReason) {
  FitJob job;
  job.start("token:99", lesson_run(), 1);
  job.wait_idle();
  EXPECT_FALSE(job.status().result);
  EXPECT_NE(job.status().error.find("out of range"), std::string::npos) << job.status().error;
}

TEST(FitJob, CancelKeepsTheWidthsFinished) {
  FitJob job;
  job.start("permutation:2", lesson_run(), 1);
  job.cancel();
  job.wait_idle();
  const FitStatus s = job.status();
  EXPECT_FALSE(s.running);
  ASSERT_TRUE(s.result) << s.error;
  EXPECT_TRUE(s.result->cancelled);
  EXPECT_LT(s.result->fits.size(), 5u);
}

class WidthView : public ::testing::Test {
 protected:
  void SetUp() override {
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;
    ImGui::GetIO().DisplaySize = ImVec2(1600, 1000);
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    ui_.images = &images_;
    ui_.report = &report_;
    state_.request.attention.n_heads = 8;
    state_.view = View::width;
    derived_ = compute_derived(state_.request, 1);
    ui_.derived = derived_.get();
  }
  void TearDown() override { ImGui::DestroyContext(); }
  void frame() {
    report_.heatmaps.clear();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImGui::GetIO().DisplaySize);
    ImGui::Begin("width");
    view_panel(View::width)(state_, ui_);
    ImGui::End();
    ImGui::Render();
  }
  AppState state_ = default_app_state();
  UiContext ui_;
  NullHeatmapImages images_;
  FrameReport report_;
  std::shared_ptr<Derived> derived_;
};

TEST_F(WidthView, TheKeysPartDrawsEveryHead) {
  state_.width.show = "keys";
  frame();
  EXPECT_EQ(report_.heatmaps.size(), 8u);
  EXPECT_TRUE(state_.commands.empty());
}

TEST_F(WidthView, ThePatternPartAsksForAFitThenShowsIt) {
  state_.width.show = "previous";
  frame();
  EXPECT_TRUE(state_.commands.has<FitPattern>());
  frame();
  EXPECT_EQ(state_.commands.size(), 1u) << "asked once while it waits";
  FitJob job;
  job.start("previous", derived_->analysis, derived_->generation);
  job.wait_idle();
  ui_.fit = job.status();
  frame();
  EXPECT_EQ(report_.heatmaps.size(), 6u) << "the target and widths 1, 2, 4, 8, 10";
}

}  // namespace
}  // namespace hs::gui
