// One head opened exactly in long-input mode (issue 50): the job that computes its whole [T, T]
// map off the UI thread (app/gui/work/exact_head_job.h) and the Single head view that asks for it.
// The map equals the whole-maps run's (1e-6, naming the cell), Cancel stops it with nothing kept,
// a request over the memory budget is refused with its numbers, and the view shows the exact cells
// (rows = T) once the map is there, the block maxima before.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "app/gui/panels/panels.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/exact_head_job.h"
#include "headless_app.h"

namespace hs::gui {
namespace {

constexpr int kLongTokens = 2100;  // past the long-input rule's 2048

ModelRequest long_text_request() {
  ModelRequest r;
  for (int i = 0; i < kLongTokens; ++i) r.sentence += "w" + std::to_string(i % 97) + " ";
  r.attention.d_model = 8;
  r.attention.n_heads = 2;
  r.attention.causal = true;
  return r;
}

struct LongRuns {
  std::shared_ptr<Derived> blocks;             // the app's result: long-input mode
  std::shared_ptr<const RunAnalysis> whole;    // the oracle: every map whole
};

const LongRuns& long_runs() {
  static const LongRuns r = [] {
    LongRuns out;
    out.blocks = compute_derived(long_text_request(), 1);
    AnalysisOptions o;
    o.maps = MapMode::whole;
    out.whole = analyse(long_text_request(), o);
    return out;
  }();
  return r;
}

void expect_same_map(const Map& got, const Map& want, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  double worst = 0;
  int wi = 0, wj = 0;
  for (int i = 0; i < got.rows(); ++i)
    for (int j = 0; j < got.cols(); ++j)
      if (double e = std::abs(double(got(i, j)) - double(want(i, j))); e > worst) worst = e, wi = i, wj = j;
  EXPECT_LE(worst, 1e-6) << what << ": cell (query " << wi << ", key " << wj << "): opened " << got(wi, wj) << ", whole run "
                         << want(wi, wj) << ", error " << worst;
}

constexpr int64_t kGiB = int64_t(1) << 30;

TEST(ExactHeadJob, OpensTheHeadsWholeExactMap) {
  const LongRuns& r = long_runs();
  ASSERT_TRUE(r.blocks->run().compact());
  ExactHeadJob job;
  EXPECT_EQ(job.open(r.blocks->analysis, 0, 1, 3 * kGiB, resident_bytes()), "");
  job.wait_idle();
  const ExactHeadStatus s = job.status();
  EXPECT_TRUE(s.is_for(r.blocks->analysis.get(), 0, 1));
  EXPECT_FALSE(s.running);
  EXPECT_FALSE(s.cancelled);
  EXPECT_TRUE(s.refused.empty()) << s.refused;
  ASSERT_TRUE(s.map) << s.error;
  EXPECT_EQ(s.done, kLongTokens);
  EXPECT_EQ(s.total, kLongTokens);
  EXPECT_EQ(s.bytes, int64_t(kLongTokens) * kLongTokens * 4);
  EXPECT_EQ(s.map->factor, 1);
  expect_same_map(s.map->cells, r.whole->run.attention[0][1], "layer 0, head 1");
}

TEST(ExactHeadJob, CancelStopsItWithNothingKept) {
  const LongRuns& r = long_runs();
  ExactHeadJob job;
  ASSERT_EQ(job.open(r.blocks->analysis, 0, 0, 3 * kGiB, resident_bytes()), "");
  job.cancel();  // before its first block is checked: it stops there
  job.wait_idle();
  const ExactHeadStatus s = job.status();
  EXPECT_FALSE(s.running);
  EXPECT_TRUE(s.cancelled);
  EXPECT_FALSE(s.map);
  EXPECT_LT(s.done, s.total);
  EXPECT_EQ(s.total, kLongTokens);
  // Opened again, it runs to the end.
  ASSERT_EQ(job.open(r.blocks->analysis, 0, 0, 3 * kGiB, resident_bytes()), "");
  job.wait_idle();
  ASSERT_TRUE(job.status().map);
  expect_same_map(job.status().map->cells, r.whole->run.attention[0][0], "layer 0, head 0 after a cancel");
}

TEST(ExactHeadJob, OverTheBudgetIsRefusedWithTheNumbers) {
  const LongRuns& r = long_runs();
  ExactHeadJob job;
  const int64_t resident = 200 * (int64_t(1) << 20);  // 200 MiB in use
  const std::string why = job.open(r.blocks->analysis, 0, 1, 210 * (int64_t(1) << 20), resident);
  EXPECT_EQ(why, "L0 h1: the exact 2100 x 2100 map needs 16.8 MiB; 200 MiB in use, memory budget 210 MiB "
                 "(View > Memory budget)");
  EXPECT_FALSE(job.busy());
  const ExactHeadStatus s = job.status();
  EXPECT_EQ(s.refused, why);
  EXPECT_FALSE(s.map);
  EXPECT_TRUE(s.is_for(r.blocks->analysis.get(), 0, 1));
  // Within the budget it opens; the next head counts the map it replaces as freed.
  ASSERT_EQ(job.open(r.blocks->analysis, 0, 1, 220 * (int64_t(1) << 20), resident), "");
  job.wait_idle();
  ASSERT_TRUE(job.status().map);
  EXPECT_EQ(job.open(r.blocks->analysis, 0, 0, 220 * (int64_t(1) << 20), resident + job.status().bytes), "");
  job.wait_idle();
  EXPECT_TRUE(job.status().map);
}

TEST(ExactHeadJob, ANewResultDropsTheOldResultsMap) {
  const LongRuns& r = long_runs();
  ExactHeadJob job;
  ASSERT_EQ(job.open(r.blocks->analysis, 0, 1, 3 * kGiB, resident_bytes()), "");
  job.wait_idle();
  ASSERT_TRUE(job.status().map);
  job.keep_only(r.blocks->analysis.get());
  EXPECT_TRUE(job.status().map) << "the same result keeps its map";
  job.keep_only(r.whole.get());
  EXPECT_FALSE(job.status().map);
  EXPECT_FALSE(job.status().is_for(r.blocks->analysis.get(), 0, 1));
}

class ExactHeadView : public test::HeadlessApp {};

TEST_F(ExactHeadView, AsksOnceShowsProgressThenTheExactCells) {
  const LongRuns& r = long_runs();
  AppState state = default_app_state();
  state.request = long_text_request();
  request_view(state, View::head);
  state.layer = 0, state.head = 1;
  ui_.derived = r.blocks.get();
  frame(state);
  frame(state);  // the tab is selected, then drawn
  ASSERT_TRUE(state.commands.has<OpenExactHead>());
  const DrawnHeatmap* before = drawn("head view");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->rows, r.blocks->run().attention[0][1].rows()) << "block maxima until the map is there";
  ExactHeadJob job;
  job.open(r.blocks->analysis, 0, 1, 3 * kGiB, resident_bytes());
  job.wait_idle();
  ui_.exact_head = job.status();
  state.commands.take();
  frame(state);
  EXPECT_FALSE(state.commands.has<OpenExactHead>()) << "asked for once";
  const DrawnHeatmap* after = drawn("head view");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->rows, kLongTokens);
  EXPECT_EQ(after->cols, kLongTokens);
  // Another head asks for its own map.
  state.head = 0;
  frame(state);
  EXPECT_TRUE(state.commands.has<OpenExactHead>());
}

}  // namespace
}  // namespace hs::gui
