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
