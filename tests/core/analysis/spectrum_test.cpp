// Singular values of the score matrices: rank(S_h) <= d_head, effective rank.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/spectrum.h"
#include "core/model/synthetic_model.h"

namespace hs {
namespace {

const char* kSentence = "the keys that Priya left on the table this morning were not hers after all, she said.";

TEST(Spectrum, ScoreRankIsAtMostHeadWidth) {
  for (int H : {1, 2, 4, 8, 16}) {
    SyntheticSpec s;
    s.attention.d_model = 16;
    s.attention.n_heads = H;
    s.seed = 3;
    const AttentionRun r = run_synthetic(kSentence, s, RunOptions{0, true, nullptr});
    const int T = r.n_tokens(), dh = 16 / H;
    ASSERT_GT(T, 16);
    for (int h = 0; h < H; ++h) {
      const Vec sv = singular_values(r.scores[0][size_t(h)]);
      ASSERT_EQ(sv.size(), T);
      for (int i = 1; i < sv.size(); ++i) EXPECT_GE(sv[i - 1], sv[i]) << "not sorted";
      const int rank = numerical_rank(sv, T);
      EXPECT_LE(rank, dh) << "heads " << H << " head " << h << ": singular values " << sv.transpose();
      EXPECT_GE(rank, std::min(dh, 1));
      // With random weights the bound is reached (min(T, d_head) independent directions).
      EXPECT_EQ(rank, dh) << "heads " << H << " head " << h;
    }
  }
}

TEST(Spectrum, DecoupledWidthRaisesTheBound) {
  SyntheticSpec s;
  s.attention.d_model = 8;
  s.attention.n_heads = 8;
  s.attention.d_head = 3;
  const AttentionRun r = run_synthetic(kSentence, s, RunOptions{0, true, nullptr});
  for (int h = 0; h < 8; ++h) EXPECT_LE(numerical_rank(singular_values(r.scores[0][size_t(h)]), r.n_tokens()), 3);
}

TEST(Spectrum, MaskedScoresAreZeroedBeforeTheSvd) {
  SyntheticSpec s;
  s.attention.causal = true;
  const AttentionRun r = run_synthetic(kSentence, s, RunOptions{0, true, nullptr});
  const Vec sv = singular_values(r.scores[0][0]);
  EXPECT_TRUE(sv.allFinite());
  EXPECT_GT(sv[0], 0.0f);
}

TEST(Spectrum, EffectiveRank) {
  Vec flat = Vec::Constant(5, 2.0f);
  EXPECT_NEAR(effective_rank(flat), 5.0f, 1e-5f);
  Vec one(4);
  one << 3.0f, 0.0f, 0.0f, 0.0f;
  EXPECT_NEAR(effective_rank(one), 1.0f, 1e-6f);
  Vec two(3);
  two << 1.0f, 1.0f, 0.0f;
  EXPECT_NEAR(effective_rank(two), 2.0f, 1e-6f);
  EXPECT_EQ(effective_rank(Vec::Zero(3)), 0.0f);
  // Identity: every singular value 1.
  EXPECT_NEAR(effective_rank(singular_values(Map::Identity(6, 6))), 6.0f, 1e-4f);
  // Rank-1 matrix: effective rank 1, numerical rank 1.
  Map r1 = Vec::LinSpaced(5, 1.0f, 5.0f) * Vec::LinSpaced(5, -1.0f, 2.0f).transpose();
  EXPECT_EQ(numerical_rank(singular_values(r1), 5), 1);
  EXPECT_NEAR(effective_rank(singular_values(r1)), 1.0f, 1e-4f);
  EXPECT_EQ(numerical_rank(Vec(), 0), 0);
}

}  // namespace
}  // namespace hs
