// The one analysis pipeline (core/analysis/run_analysis.h) that the app, headscope-cli maps and
// export call: what it derives, the one long-input rule, and the sweep beside it.
#include "core/analysis/run_analysis.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "core/analysis/head_stats.h"
#include "core/analysis/long_input.h"
#include "core/analysis/sweep_analysis.h"
#include "core/util/errors.h"

namespace hs {
namespace {

ModelRequest request(const std::string& sentence, int d_model = 8, int heads = 4) {
  ModelRequest r;
  r.sentence = sentence;
  r.attention.d_model = d_model;
  r.attention.n_heads = heads;
  return r;
}

std::string words(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "w" + std::to_string(i % 97) + " ";
  return s;
}

TEST(RunAnalysis, DerivesEveryViewsNumbersFromTheRun) {
  const auto a = analyse(request("the keys that Priya left on the table were not hers"));
  ASSERT_EQ(a->run.n_layers(), 1);
  EXPECT_FALSE(a->long_input());
  EXPECT_TRUE(a->long_input_reason.empty());
  EXPECT_EQ(a->map_labels, a->run.tokens);
  const LayerMaps& heads = a->run.attention[0];
  EXPECT_TRUE(a->difference[0].isApprox(head_difference(heads), 0.0f));
  EXPECT_TRUE(a->average[0].isApprox(head_average(heads), 0.0f));
  float largest = 0;
  for (const Map& m : heads) largest = std::max(largest, m.maxCoeff());
  EXPECT_EQ(a->layer_max[0], largest);
  ASSERT_EQ(a->spectrum[0].size(), heads.size());
  EXPECT_GT(a->spectrum[0][0].singular_values.size(), 0) << "11 tokens: singular values fit";
  EXPECT_LE(a->spectrum[0][0].score_rank, 2) << "a head of width 2 has score rank <= 2";
  EXPECT_EQ(a->engine_ms.size(), 1u);
}

TEST(RunAnalysis, RepeatRunsTheEngineThatManyTimes) {
  AnalysisOptions o;
  o.repeat = 3;
  o.spectrum = false;
  const auto a = analyse(request("a b c"), o);
  EXPECT_EQ(a->engine_ms.size(), 3u);
  EXPECT_EQ(a->spectrum[0][0].singular_values.size(), 0) << "spectrum off";
}

// The rule the app and the CLI share: whole maps up to kLongInputTokens tokens and 1 GiB.
TEST(RunAnalysis, OneLongInputRuleForEveryFrontEnd) {
  EXPECT_EQ(display_size_for(kLongInputTokens, 4), 0);
  EXPECT_EQ(display_size_for(kLongInputTokens + 1, 4), 1024);
  EXPECT_EQ(display_size_for(kLongInputTokens + 1, 144), 512);
  EXPECT_EQ(display_size_for(2000, 144), 512) << "144 maps of 2000^2 floats with scores pass 1 GiB";
  EXPECT_NE(long_input_reason(3000, 4).find("more than 2048"), std::string::npos);
  EXPECT_NE(long_input_reason(2000, 144).find("GiB"), std::string::npos);

  MapPlan seen;
  AnalysisOptions o;
  o.spectrum = false;
  o.check_plan = [&](const MapPlan& p) { seen = p; };
  const auto a = analyse(request(words(kLongInputTokens + 100), 16, 4), o);
  EXPECT_EQ(seen.tokens, kLongInputTokens + 100);
  EXPECT_EQ(seen.maps, 4);
  EXPECT_EQ(seen.display_size, 1024);
  EXPECT_TRUE(a->long_input());
  EXPECT_EQ(a->long_input_reason, seen.reason);
  EXPECT_EQ(a->run.map_factor, 3);
  EXPECT_EQ(a->map_labels[1], "3-5");
  EXPECT_EQ(a->map_index(7), 2);
  EXPECT_EQ(a->map_token(2), 6);
}

TEST(RunAnalysis, CheckPlanRefusesBeforeTheEngineRuns) {
  AnalysisOptions o;
  bool ran = false;
  o.check_plan = [&](const MapPlan& p) {
    ran = true;
    if (p.display_size > 0) throw InputError("refused: " + p.reason);
  };
  EXPECT_THROW(analyse(request(words(kLongInputTokens + 1), 8, 2), o), InputError);
  EXPECT_TRUE(ran);
}

TEST(RunAnalysis, WholeOrLongInputOnRequest) {
  AnalysisOptions whole;
  whole.maps = MapMode::whole;
  whole.spectrum = false;
  const auto w = analyse(request(words(kLongInputTokens + 10), 8, 1), whole);
  EXPECT_FALSE(w->long_input());
  EXPECT_EQ(w->run.attention[0][0].rows(), kLongInputTokens + 10);

  AnalysisOptions blocks;
  blocks.maps = MapMode::long_input;
  blocks.display_size = 4;
  const auto b = analyse(request("one two three four five six seven eight nine ten"), blocks);
  EXPECT_TRUE(b->long_input());
  EXPECT_EQ(b->long_input_reason, "asked for");
  EXPECT_EQ(b->run.attention[0][0].rows(), 4);  // 10 tokens in blocks of 3

  blocks.display_size = kMaxDisplaySize + 1;
  EXPECT_THROW(analyse(request("a b"), blocks), InputError);
}

TEST(RunAnalysis, AnalyseRunDerivesTheSameNumbers) {
  const auto a = analyse(request("the cat sat on the mat"));
  const auto b = analyse_run(a->run, a->request);
  EXPECT_TRUE(b->difference[0].isApprox(a->difference[0], 0.0f));
  EXPECT_EQ(b->layer_max, a->layer_max);
  EXPECT_EQ(b->map_labels, a->map_labels);
}

TEST(SweepAnalysis, SyntheticSentencesOnly) {
  const ModelRequest r = request("the cat sat on the mat");
  const auto a = analyse(r);
  const auto sweep = analyse_sweep(r, a->run.tokens);
  ASSERT_TRUE(sweep->available) << sweep->note;
  EXPECT_EQ(sweep->points.size(), 4u);  // 1, 2, 4, 8 heads
  ModelRequest weights = r;
  weights.weights = "mha.safetensors";
  const auto none = analyse_sweep(weights, a->run.tokens);
  EXPECT_FALSE(none->available);
  EXPECT_NE(none->note.find("synthetic"), std::string::npos);
  const auto long_sweep = analyse_sweep(r, std::vector<std::string>(kSweepMaxTokens + 1, "w"));
  EXPECT_FALSE(long_sweep->available);
  EXPECT_TRUE(same_sweep_inputs(r, r));
  ModelRequest heads = r;
  heads.attention.n_heads = 2;
  EXPECT_TRUE(same_sweep_inputs(r, heads)) << "the sweep ignores the head count";
}

TEST(RunAnalysis, RolesAndRolloutOnlyWhenAsked) {
  const auto all = analyse(request("the cat sat on the mat"));
  EXPECT_FALSE(all->roles.empty());
  EXPECT_GT(all->rollout.size(), 0);
  AnalysisOptions o;
  o.roles = false;
  o.rollout = false;
  const auto bare = analyse(request("the cat sat on the mat"), o);
  EXPECT_TRUE(bare->roles.empty());
  EXPECT_EQ(bare->rollout.size(), 0);
  // The rest is the same.
  ASSERT_EQ(bare->distance.size(), all->distance.size());
  for (size_t l = 0; l < all->distance.size(); ++l) {
    EXPECT_EQ(bare->distance[l], all->distance[l]);
    EXPECT_EQ(bare->difference[l], all->difference[l]);
  }
}

TEST(HeadDifference, RowSumsEqualBitForBit) {
  // 37 tokens (blocks of 8 rows and a last partial one), 8 heads: every pair's row sums are the
  // per-row expression taken one pair at a time, bit for bit, and the tables follow from them.
  const auto a = analyse(request(words(37), 16, 8));
  const AttentionRun& r = a->run;
  ASSERT_EQ(r.n_tokens(), 37);
  for (int l = 0; l < r.n_layers(); ++l) {
    const LayerMaps& heads = r.attention[size_t(l)];
    size_t p = 0;
    for (size_t x = 0; x < heads.size(); ++x)
      for (size_t y = x + 1; y < heads.size(); ++y, ++p) {
        const std::vector<double>& got = a->row_sums.pair[size_t(l)][p];
        ASSERT_EQ(got.size(), 37u);
        double total = 0.0;
        for (Eigen::Index i = 0; i < 37; ++i) {
          const double want = (heads[x].row(i) - heads[y].row(i)).cwiseAbs().cast<double>().sum();
          ASSERT_EQ(std::memcmp(&got[size_t(i)], &want, sizeof want), 0) << "layer " << l << " pair " << x << "," << y << " row " << i;
          total += want;
        }
        EXPECT_EQ(a->distance[size_t(l)](Eigen::Index(x), Eigen::Index(y)), static_cast<float>(0.5 * total / 37.0));
      }
  }
}

}  // namespace
}  // namespace hs
