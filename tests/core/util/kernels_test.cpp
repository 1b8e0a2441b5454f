// core/util/kernels: the packed SGEMM against Eigen over shapes that hit every edge (tiles,
// blocks, threads, strides, transposes), a left operand packed once against sgemm, the few-rows
// product against double precision, the softmax's properties, and exp's accuracy against
// std::exp. tests.cmake runs this file once per instruction set (HEADSCOPE_KERNELS).
#include "core/util/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "core/model/rng.h"
#include "core/util/tensor.h"

namespace hs {
namespace {

// tests.cmake sets HEADSCOPE_KERNELS per run; the test, like the programs, hands it to core.
const bool kCapped = [] {
  if (const char* cap = std::getenv("HEADSCOPE_KERNELS")) cap_kernels(cap);
  return true;
}();

Map random_map(int rows, int cols, uint64_t seed) {
  Map m(rows, cols);
  Rng rng(seed);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = static_cast<float>(rng.uniform(-1.0, 1.0));
  return m;
}

TEST(Kernels, ReportsAnInstructionSet) {
  const std::string isa = kernel_isa();
  EXPECT_TRUE(isa == "avx512" || isa == "avx2" || isa == "portable") << isa;
}

TEST(Kernels, SgemmMatchesEigenOnEveryEdge) {
  const int sizes[] = {1, 13, 31, 33, 65, 200, 300};
  const int depths[] = {1, 7, 257, 600};
  uint64_t seed = 1;
  for (int M : sizes)
    for (int N : sizes)
      for (int K : depths)
        for (bool bt : {false, true})
          for (int threads : {1, 2}) {
            // A and B sit inside wider matrices (strided), C too, with a border that must survive.
            const Map a = random_map(M, K + 3, seed++), b = bt ? random_map(N, K + 2, seed++) : random_map(K, N + 5, seed++);
            const Map c0 = random_map(M, N + 4, seed++);
            const auto a_view = a.leftCols(K);
            const Map b_op = bt ? Map(b.leftCols(K).transpose()) : Map(b.leftCols(N));
            for (bool accumulate : {false, true}) {
              Map c = c0;
              sgemm(M, N, K, 0.5f, a.data(), a.cols(), b.data(), b.cols(), bt, c.data(), c.cols(), accumulate, threads);
              Map want = c0;
              if (accumulate) want.leftCols(N) += 0.5f * (a_view * b_op);
              else want.leftCols(N) = 0.5f * (a_view * b_op);
              const float err = (c - want).cwiseAbs().maxCoeff();
              ASSERT_LE(err, 1e-4f * std::sqrt(float(K))) << "M " << M << " N " << N << " K " << K << " bt " << bt
                                                          << " threads " << threads << " accumulate " << accumulate
                                                          << " isa " << kernel_isa();
            }
          }
}

// A packed once and multiplied block by block (a compact weight's rows dequantized in turn): the
// same bits as sgemm of the whole product, for every edge of tiles and depth blocks.
TEST(Kernels, PackedLhsBlocksEqualOneSgemm) {
  uint64_t seed = 100;
  for (int M : {1, 8, 13, 200})
    for (int K : {1, 7, 257, 600})
      for (bool bt : {false, true}) {
        const int N = 150;
        const Map a = random_map(M, K + 3, seed++), b = bt ? random_map(N, K + 2, seed++) : random_map(K, N + 5, seed++);
        Map want(M, N), got(M, N);
        sgemm(M, N, K, 1.0f, a.data(), a.cols(), b.data(), b.cols(), bt, want.data(), want.cols());
        const PackedLhs ap(M, K, a.data(), a.cols());
        EXPECT_EQ(ap.rows(), M);
        for (int n0 = 0; n0 < N; n0 += 64) {  // blocks of 64, 64, 22 columns of C (rows of B when transposed)
          const int n = std::min(64, N - n0);
          const float* bn = bt ? b.data() + int64_t(n0) * b.cols() : b.data() + n0;
          sgemm_packed_lhs(ap, n, bn, b.cols(), bt, got.data() + n0, got.cols());
        }
        ASSERT_EQ(0, std::memcmp(got.data(), want.data(), size_t(got.size()) * sizeof(float)))
            << "M " << M << " K " << K << (bt ? " B^T" : "") << ": largest difference " << (got - want).cwiseAbs().maxCoeff();
      }
}

// The few-rows product against a double-precision reference, entry by entry: a float sum of K
// products, in any order, is within K u sum_k |a_k b_k| of the exact one (u = 2^-24); a lost or
// doubled term is far outside. M = 1 .. kFewRowsMax and past it (blocks of rows), N and K off
// every vector width, B and B^T, strided operands; C's border must survive.
TEST(Kernels, FewRowsMatchDoublePrecision) {
  uint64_t seed = 500;
  for (int M = 1; M <= kFewRowsMax + 3; ++M)
    for (int N : {1, 7, 17, 33, 529})
      for (int K : {1, 5, 16, 17, 31, 259, 771})
        for (bool bt : {false, true}) {
          const Map a = random_map(M, K + 3, seed++), b = bt ? random_map(N, K + 2, seed++) : random_map(K, N + 5, seed++);
          const Map c0 = random_map(M, N + 4, seed++);
          Map c = c0;
          sgemm_few_rows(M, N, K, a.data(), a.cols(), b.data(), b.cols(), bt, c.data(), c.cols());
          for (int i = 0; i < M; ++i) {
            for (int j = 0; j < N; ++j) {
              double want = 0, size = 0;
              for (int k = 0; k < K; ++k) {
                const double p = double(a(i, k)) * double(bt ? b(j, k) : b(k, j));
                want += p;
                size += std::fabs(p);
              }
              const double bound = double(K) * std::ldexp(1.0, -24) * size + 1e-30;
              ASSERT_LE(std::fabs(double(c(i, j)) - want), bound)
                  << "M " << M << " N " << N << " K " << K << (bt ? " B^T" : "") << " at ("
                  << i << ", " << j << "): " << c(i, j) << " vs " << want << ", isa " << kernel_isa();
            }
            for (int j = N; j < N + 4; ++j) ASSERT_EQ(c(i, j), c0(i, j)) << "wrote past row " << i << ", M " << M;
          }
        }
}

// Nothing to multiply: C is zeros (K = 0), nothing is written (M or N = 0).
TEST(Kernels, FewRowsEmptyShapes) {
  Map c = Map::Constant(2, 3, 7.0f);
  const float a = 1.0f, b = 1.0f;
  sgemm_few_rows(2, 3, 0, &a, 1, &b, 3, false, c.data(), 3);
  EXPECT_EQ(c.cwiseAbs().maxCoeff(), 0.0f);
  c.setConstant(7.0f);
  sgemm_few_rows(0, 3, 4, &a, 4, &b, 3, true, c.data(), 3);
  sgemm_few_rows(2, 0, 4, &a, 4, &b, 3, false, c.data(), 3);
  EXPECT_EQ(c.minCoeff(), 7.0f);
}

TEST(Kernels, ExpWithinOnePpmOfStdExp) {
  std::vector<float> x;
  for (float v = -87.0f; v <= 0.0f; v += 0.000731f) x.push_back(v);
  for (float v : {0.0f, -0.0f, 1e-8f, -1e-8f, 0.5f, 10.0f, 80.0f}) x.push_back(v);
  std::vector<float> y(x.size());
  exp_floats(x.data(), y.data(), int64_t(x.size()));
  double worst = 0;
  size_t at = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double want = std::exp(double(x[i]));
    const double rel = std::fabs(double(y[i]) - want) / want;
    if (rel > worst) {
      worst = rel;
      at = i;
    }
  }
  EXPECT_LE(worst, 1e-6) << "worst at x = " << x[at] << ": " << y[at] << " vs " << std::exp(double(x[at]));
  const float neg_inf = -std::numeric_limits<float>::infinity();
  float zero = 1.0f;
  exp_floats(&neg_inf, &zero, 1);
  EXPECT_EQ(zero, 0.0f);
}

// NaN in, NaN out, on every ISA: a clamp (max/min return their second operand for NaN) had turned
// an overflowed row (inf - inf) into a uniform one on AVX2, so no check saw the overflow.
TEST(Kernels, ExpAndSoftmaxKeepNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::vector<float> x(19, 1.0f), y(19);
  x[3] = nan, x[11] = nan, x[18] = nan;
  exp_floats(x.data(), y.data(), int64_t(x.size()));
  for (int i : {3, 11, 18}) EXPECT_TRUE(std::isnan(y[size_t(i)])) << "exp(NaN) at " << i << " = " << y[size_t(i)];
  for (int cols : {3, 8, 19}) {
    std::vector<float> row(size_t(cols), inf);  // overflowed scores: max inf, inf - inf = NaN
    softmax_rows(row.data(), 1, cols, cols);
    for (int j = 0; j < cols; ++j) EXPECT_TRUE(std::isnan(row[size_t(j)])) << cols << " columns, column " << j << ": " << row[size_t(j)];
  }
}

TEST(Kernels, SoftmaxRowsSumToOneAndMaskedEntriesAreZero) {
  for (int cols : {1, 3, 8, 16, 17, 100, 513}) {
    Map s = random_map(5, cols + 2, 42) * 30.0f;
    const Map before = s;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < cols; j += 3) s(i, j) = -std::numeric_limits<float>::infinity();
    for (int i = 0; i < 5; ++i) s(i, cols - 1) = 2.0f;  // one visible key per row at least
    Map ref = s;
    softmax_rows(s.data(), 5, cols, s.cols());
    for (int i = 0; i < 5; ++i) {
      const float m = ref.row(i).head(cols).maxCoeff();
      double sum = 0;
      for (int j = 0; j < cols; ++j) sum += std::exp(double(ref(i, j)) - m);
      for (int j = 0; j < cols; ++j) {
        if (std::isinf(ref(i, j))) {
          EXPECT_EQ(s(i, j), 0.0f) << "row " << i << " col " << j;
        }
        EXPECT_NEAR(s(i, j), std::exp(double(ref(i, j)) - m) / sum, 1e-6) << "row " << i << " col " << j << " cols " << cols;
      }
      EXPECT_NEAR(s.row(i).head(cols).sum(), 1.0f, 1e-5f);
      EXPECT_EQ(s(i, cols), before(i, cols)) << "softmax wrote past the row";
    }
  }
}

TEST(Kernels, SoftmaxEntropyMatchesDoublePrecision) {
  for (int cols : {1, 3, 8, 16, 17, 100, 513}) {
    Map s = random_map(4, cols, 9) * 6.0f;
    for (int j = 0; j + 1 < cols; j += 4) s(1, j) = -std::numeric_limits<float>::infinity();  // masked keys
    s.row(2).setConstant(1.0f);                                                                // uniform: log(cols)
    const Map ref = s;
    std::vector<float> entropy(4, -1.0f);
    softmax_rows(s.data(), 4, cols, cols, entropy.data());
    for (int i = 0; i < 4; ++i) {
      const double m = ref.row(i).maxCoeff();
      double z = 0, h = 0;
      for (int j = 0; j < cols; ++j) z += std::exp(double(ref(i, j)) - m);
      for (int j = 0; j < cols; ++j) {
        const double p = std::exp(double(ref(i, j)) - m) / z;
        if (p > 0) h -= p * std::log(p);
      }
      EXPECT_NEAR(entropy[size_t(i)], h, 2e-5 * std::max(1.0, h)) << "row " << i << " cols " << cols;
    }
    EXPECT_NEAR(entropy[2], std::log(double(cols)), 1e-5) << "uniform row, cols " << cols;
  }
}

TEST(Kernels, SoftmaxIsShiftInvariant) {
  Map a = random_map(3, 50, 7), b = a.array() + 100.0f;
  softmax_rows(a.data(), 3, 50, 50);
  softmax_rows(b.data(), 3, 50, 50);
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-5f);
}

}  // namespace
}  // namespace hs
