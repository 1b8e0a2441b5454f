// The head-count sweep: every divisor of d_model, narrower heads as the count grows, the
// same parameter count throughout, score rank bounded by the head width.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/head_sweep.h"
#include "core/text/word_tokenizer.h"
#include "core/util/errors.h"

namespace hs {
namespace {

TEST(HeadSweep, Divisors) {
  EXPECT_EQ(head_count_divisors(8), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(head_count_divisors(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(head_count_divisors(1), (std::vector<int>{1}));
  EXPECT_EQ(head_count_divisors(7), (std::vector<int>{1, 7}));
}

TEST(HeadSweep, ShapeWidthsParamsAndRanks) {
  const std::vector<std::string> tokens = token_texts(tokenize_words("the keys that Priya left on the table were not hers"));
  SweepSpec spec;
  spec.base.d_model = 12;
  spec.seeds = {0, 1, 2};
  const std::vector<SweepPoint> points = head_count_sweep(tokens, spec, 2);
  ASSERT_EQ(points.size(), 6u);
  const std::vector<int> counts = head_count_divisors(12);
  for (size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    EXPECT_EQ(p.n_heads, counts[i]);
    EXPECT_EQ(p.d_head, 12 / counts[i]);
    if (i) {
      EXPECT_LT(p.d_head, points[i - 1].d_head) << "d_head must fall as heads grow";
    }
    EXPECT_EQ(p.param_count, 4 * 144 + 48) << p.n_heads << " heads";
    EXPECT_LE(p.mean_score_rank, float(p.d_head) + 1e-6f) << p.n_heads << " heads";
    EXPECT_GT(p.mean_score_rank, 0.0f);
    EXPECT_GT(p.mean_entropy, 0.0f);
    EXPECT_LE(p.mean_entropy, std::log(float(tokens.size())) + 1e-5f);
    EXPECT_GT(p.mean_effective_rank, 0.0f);
    if (p.n_heads == 1) {
      // One head: no pair, so no value (not 0, which would read as "identical heads").
      EXPECT_TRUE(std::isnan(p.mean_head_difference));
      EXPECT_TRUE(std::isnan(p.mean_head_distance));
    } else {
      EXPECT_GT(p.mean_head_difference, 0.0f);
      EXPECT_GT(p.mean_head_distance, 0.0f);
      EXPECT_LE(p.mean_head_distance, 1.0f);
      // distance = difference * T / 2 (every row sums to 1)
      EXPECT_NEAR(p.mean_head_distance, p.mean_head_difference * float(tokens.size()) / 2, 1e-5f);
    }
  }
  // Deterministic, whatever the thread count.
  const std::vector<SweepPoint> again = head_count_sweep(tokens, spec, 1);
  for (size_t i = 0; i < points.size(); ++i) {
    if (points[i].n_heads > 1) EXPECT_EQ(points[i].mean_head_difference, again[i].mean_head_difference);
    EXPECT_EQ(points[i].mean_entropy, again[i].mean_entropy);
  }
}

TEST(HeadSweep, NeedsSeeds) {
  SweepSpec spec;
  spec.seeds.clear();
  EXPECT_THROW(head_count_sweep({"a"}, spec), InputError);
  spec.seeds = {0};
  EXPECT_THROW(head_count_sweep({}, spec), InputError);
}

// Issue 15: export --view sweep with d_model 4096 on 300 words ran past 60 s (every divisor x 5
// seeds x a T^3 SVD per head). head_count_sweep estimates its work first and refuses, saying why
// and how many tokens would fit, before running anything.
TEST(HeadSweep, WorkIsBoundedBeforeAnythingRuns) {
  std::vector<std::string> words(300, "w");
  for (size_t i = 0; i < words.size(); ++i) words[i] += std::to_string(i % 37);
  SweepSpec spec;
  spec.base.d_model = 4096;
  std::string msg;
  try {
    head_count_sweep(words, spec);
  } catch (const InputError& e) {
    msg = e.what();
  }
  EXPECT_NE(msg.find("head-count sweep"), std::string::npos) << msg;
  EXPECT_NE(msg.find("d_model 4096"), std::string::npos) << msg;
  EXPECT_NE(msg.find("300 tokens"), std::string::npos) << msg;
  EXPECT_NE(msg.find("limit"), std::string::npos) << msg;
  spec.base.d_model = 512;
  try {
    head_count_sweep(words, spec);
    ADD_FAILURE() << "d_model 512 on 300 tokens ran";
  } catch (const InputError& e) {
    msg = e.what();
  }
  // "... at most N tokens fit": N must itself fit, N + 1 not.
  const size_t at = msg.find("at most ");
  ASSERT_NE(at, std::string::npos) << msg;
  const int fits = std::stoi(msg.substr(at + 8));
  EXPECT_GT(fits, 1) << msg;
  EXPECT_LE(head_sweep_work(fits, 512, spec.seeds.size()), kMaxSweepWork);
  EXPECT_GT(head_sweep_work(fits + 1, 512, spec.seeds.size()), kMaxSweepWork);
  // What the app and the lesson use stays well inside: d_model 8 on 256 tokens, 12 on 11.
  EXPECT_LT(head_sweep_work(256, 8, 5), kMaxSweepWork / 4);
  EXPECT_LT(head_sweep_work(11, 12, 5), kMaxSweepWork / 100);
  // d_model 8192 on 3 words (42 s before) is refused too: random weights of 4 d^2 per run.
  EXPECT_GT(head_sweep_work(3, 8192, 5), kMaxSweepWork);
  // The base's own head count and width are not checked: every divisor is swept.
  spec.base.d_model = 8;
  spec.base.n_heads = 5;
  spec.base.d_head = 3;
  spec.seeds = {0};
  EXPECT_EQ(head_count_sweep({"a", "b"}, spec).size(), 4u);
}

}  // namespace
}  // namespace hs
