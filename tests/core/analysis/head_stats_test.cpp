// Head difference, head average and row entropy.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/head_stats.h"
#include "core/model/synthetic_model.h"

namespace hs {
namespace {

LayerMaps synthetic_heads(int H, bool causal = false) {
  SyntheticSpec s;
  s.attention.d_model = 8;
  s.attention.n_heads = H;
  s.attention.causal = causal;
  s.seed = 5;
  return run_synthetic("the keys that Priya left on the table were not hers", s).attention[0];
}

TEST(HeadDifference, ZeroDiagonalAndSymmetric) {
  const LayerMaps heads = synthetic_heads(4);
  const Map d = head_difference(heads);
  ASSERT_EQ(d.rows(), 4);
  ASSERT_EQ(d.cols(), 4);
  for (int a = 0; a < 4; ++a) {
    EXPECT_EQ(d(a, a), 0.0f) << "diff(" << a << ", " << a << ")";
    for (int b = 0; b < 4; ++b) {
      EXPECT_EQ(d(a, b), d(b, a)) << a << ", " << b;
      if (a != b) {
        EXPECT_GT(d(a, b), 0.0f) << a << ", " << b;
      }
    }
  }
  // diff(h, h) = 0 when two slots hold the same map.
  LayerMaps same = {heads[1], heads[1]};
  EXPECT_EQ(head_difference(same)(0, 1), 0.0f);
}

TEST(HeadDifference, IsTheMeanAbsoluteDifferenceOverAllCells) {
  Map a(2, 2), b(2, 2);
  a << 1.0f, 0.0f, 0.5f, 0.5f;
  b << 0.0f, 1.0f, 0.25f, 0.75f;
  // |1| + |1| + |0.25| + |0.25| = 2.5 over 4 cells.
  EXPECT_FLOAT_EQ(head_difference({a, b})(0, 1), 0.625f);
  const LayerMaps heads = synthetic_heads(4);
  const Map d = head_difference(heads);
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      double sum = 0;
      for (Eigen::Index i = 0; i < heads[0].size(); ++i) sum += std::abs(double(heads[size_t(x)].data()[i]) - heads[size_t(y)].data()[i]);
      EXPECT_NEAR(d(x, y), sum / double(heads[0].size()), 1e-7) << x << ", " << y;
    }
  EXPECT_EQ(abs_difference(a, b)(0, 0), 1.0f);
  EXPECT_EQ(head_difference({a}).size(), 1);
}

TEST(HeadDistance, IsTheMeanTotalVariationPerRow) {
  Map a(2, 2), b(2, 2);
  a << 1.0f, 0.0f, 0.5f, 0.5f;
  b << 0.0f, 1.0f, 0.25f, 0.75f;
  // Row 0: disjoint, 1. Row 1: 0.5 * (0.25 + 0.25) = 0.25. Mean 0.625.
  EXPECT_FLOAT_EQ(head_distance({a, b})(0, 1), 0.625f);
  EXPECT_EQ(head_distance({a, a})(0, 1), 0.0f);
  const LayerMaps heads = synthetic_heads(4, true);
  const Map dist = head_distance(heads), diff = head_difference(heads);
  const float T = float(heads[0].rows());
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y) {
      EXPECT_EQ(dist(x, y), dist(y, x));
      EXPECT_GE(dist(x, y), 0.0f);
      EXPECT_LE(dist(x, y), 1.0f);
      EXPECT_NEAR(dist(x, y), diff(x, y) * T / 2, 1e-6f) << "distance = difference * T / 2";
    }
}

// The regression of issue 14: the difference of the same two heads shrinks like 1/T as the
// sentence grows; the distance does not. Two hand-made heads: one attends to the previous token,
// one to the first token, on sentences of 22, 42 and 82 tokens.
TEST(HeadDistance, MeansTheSameAtAnyLength) {
  std::vector<float> distances, differences;
  for (int T : {22, 42, 82}) {
    Map prev = Map::Zero(T, T), first = Map::Zero(T, T);
    for (int i = 0; i < T; ++i) prev(i, std::max(i - 1, 0)) = 1.0f, first(i, 0) = 1.0f;
    distances.push_back(head_distance({prev, first})(0, 1));
    differences.push_back(head_difference({prev, first})(0, 1));
  }
  // Rows 0 and 1 agree (key 0), the rest are disjoint: distance (T - 2) / T, near 1 at every length.
  EXPECT_NEAR(distances[0], 20.0f / 22, 1e-6f);
  EXPECT_NEAR(distances[2], 80.0f / 82, 1e-6f);
  EXPECT_GT(differences[0] / differences[2], 3.0f) << "the difference shrinks like 1/T";
}

TEST(HeadAverage, RowsSumToOneAndEqualTheMean) {
  for (bool causal : {false, true}) {
    const LayerMaps heads = synthetic_heads(4, causal);
    const Map avg = head_average(heads);
    for (int i = 0; i < avg.rows(); ++i) EXPECT_NEAR(avg.row(i).sum(), 1.0f, 1e-6f) << "row " << i;
    const Map mean = (heads[0] + heads[1] + heads[2] + heads[3]) / 4.0f;
    EXPECT_LE((avg - mean).cwiseAbs().maxCoeff(), 1e-7f);
    if (causal) {
      EXPECT_EQ(avg(0, 1), 0.0f);
    }
  }
  const LayerMaps one = synthetic_heads(1);
  EXPECT_EQ(head_average(one), one[0]);
}

TEST(RowEntropy, UniformIsLogTAndOneHotIsZero) {
  const Map uniform = Map::Constant(5, 5, 0.2f);
  const Vec e = row_entropy(uniform);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(e[i], std::log(5.0f), 1e-6f);
  EXPECT_NEAR(mean_entropy(uniform), std::log(5.0f), 1e-6f);
  const Map eye = Map::Identity(4, 4);  // 0 log 0 = 0
  EXPECT_EQ(row_entropy(eye).cwiseAbs().maxCoeff(), 0.0f);
  Map half(1, 2);
  half << 0.5f, 0.5f;
  EXPECT_NEAR(row_entropy(half)[0], std::log(2.0f), 1e-7f);
  // Real maps: between 0 and log T.
  for (const Map& a : synthetic_heads(4)) {
    const Vec h = row_entropy(a);
    EXPECT_GE(h.minCoeff(), 0.0f);
    EXPECT_LE(h.maxCoeff(), std::log(float(a.cols())) + 1e-6f);
  }
}

}  // namespace
}  // namespace hs
