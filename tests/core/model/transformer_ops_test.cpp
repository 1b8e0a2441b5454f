// The dense products the pretrained forwards run on (matmul, matmul_wt) against a
// double-precision product: few rows (Eigen's path) and many (the packed kernels), shapes that
// are not multiples of any kernel tile, one thread and several.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/attention_layer.h"
#include "core/model/transformer_ops.h"

namespace hs {
namespace {

Map random_map(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Map m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// y should be x w (w: [k, n]). Each cell may differ from the double-precision sum by the float
// rounding of a k-term sum in any order: at most k * 2^-24 * sum_k |x_ik w_kj| (plus 1e-6).
void expect_product(const Map& y, const Map& x, const Map& w, const char* what) {
  ASSERT_EQ(y.rows(), x.rows()) << what;
  ASSERT_EQ(y.cols(), w.cols()) << what;
  for (Eigen::Index i = 0; i < y.rows(); ++i)
    for (Eigen::Index j = 0; j < y.cols(); ++j) {
      double exact = 0.0, magnitude = 0.0;
      for (Eigen::Index k = 0; k < x.cols(); ++k) {
        exact += double(x(i, k)) * double(w(k, j));
        magnitude += std::abs(double(x(i, k)) * double(w(k, j)));
      }
      const double tolerance = double(x.cols()) * 0x1p-24 * magnitude + 1e-6;
      ASSERT_NEAR(double(y(i, j)), exact, tolerance) << what << ": cell (" << i << ", " << j << ") of [" << y.rows()
                                                     << ", " << y.cols() << "], k = " << x.cols();
    }
}

TEST(Matmul, MatchesDoublePrecisionForFewAndManyRowsAndAnyThreads) {
  std::mt19937 rng(7);
  for (const int rows : {1, 3, 7, 8, 9, 64, 129}) {
    for (const int threads : {1, 2, 3}) {
      const Map x = random_map(rows, 77, rng);  // [T, k]
      const Map w = random_map(77, 45, rng);    // [k, n]
      SCOPED_TRACE("rows " + std::to_string(rows) + ", threads " + std::to_string(threads));
      expect_product(matmul(x, w, threads), x, w, "matmul");
      const Map wt = w.transpose();  // [n, k], nn.Linear's layout
      expect_product(matmul_wt(x, wt, threads), x, w, "matmul_wt");
    }
  }
}

TEST(Matmul, WideOutputsSplitOverThreadsGiveTheSameResultAsOneThread) {
  std::mt19937 rng(11);
  const Map x = random_map(40, 64, rng), w = random_map(1000, 64, rng);  // logits-like: [T, d] x [vocab, d]^T
  const Map one = matmul_wt(x, w, 1), two = matmul_wt(x, w, 2);
  ASSERT_EQ(one.rows(), 40);
  ASSERT_EQ(one.cols(), 1000);
  EXPECT_EQ((one - two).cwiseAbs().maxCoeff(), 0.0f) << "each output column is one thread's, summed in the same order";
  expect_product(one, x, w.transpose(), "matmul_wt, 1000 columns");
}

TEST(Matmul, EmptyInnerDimensionGivesZeros) {
  const Map x(12, 0), w(0, 5);
  const Map y = matmul(x, w, 2);
  ASSERT_EQ(y.rows(), 12);
  ASSERT_EQ(y.cols(), 5);
  EXPECT_EQ(y.cwiseAbs().maxCoeff(), 0.0f);
}

// Cached decoding must give the contexts the whole-sequence engine gives, position by position,
// with grouped queries, a window, an explicit scale and a soft-cap.
TEST(AttendCached, MatchesTheWholeSequenceEngine) {
  std::mt19937 rng(13);
  AttentionConfig c;
  c.d_model = 24;
  c.n_heads = 6;
  c.n_kv_heads = 2;
  c.d_head = 5;
  c.causal = true;
  for (const int window : {-1, 0, 3}) {
    for (const float softcap : {0.0f, 1.2f}) {
      c.window = window;
      c.softcap = softcap;
      c.scale = softcap > 0 ? 0.3f : 0.0f;
      const int T = 17;
      const Map q = random_map(T, 30, rng) * 2.0f, k = random_map(T, 10, rng) * 2.0f, v = random_map(T, 10, rng);
      const Map whole = attend_heads(q, k, v, c, 0, nullptr, 1);  // [T, H*dh]
      for (const int first : {0, 5, 16}) {
        const Map part = attend_cached(q.bottomRows(T - first), k, v, c, first);
        const float err = (part - whole.bottomRows(T - first)).cwiseAbs().maxCoeff();
        EXPECT_LE(err, 2e-6f) << "window " << window << " softcap " << softcap << " first " << first;
      }
    }
  }
}

TEST(RmsNormHeads, NormalisesEachHeadOnItsOwn) {
  std::mt19937 rng(17);
  Map m = random_map(3, 12, rng);
  const Map before = m;
  Vec w(4);
  w << 1.0f, 2.0f, 0.5f, -1.0f;
  rms_norm_heads(m, 3, 4, w, 1e-6f);
  for (int t = 0; t < 3; ++t)
    for (int h = 0; h < 3; ++h) {
      const Eigen::RowVectorXf x = before.row(t).segment(h * 4, 4);
      const float rms = std::sqrt(x.squaredNorm() / 4.0f + 1e-6f);
      for (int j = 0; j < 4; ++j) EXPECT_NEAR(m(t, h * 4 + j), x[j] / rms * w[j], 1e-5f) << t << " " << h << " " << j;
    }
}

}  // namespace
}  // namespace hs
