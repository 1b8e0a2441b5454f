// Drawing a map on fewer pixels than cells keeps every peak (core/render/peak_reduce.h): the rule
// the app's shader and the PNG figures share.
#include "core/render/peak_reduce.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hs {
namespace {

TEST(PeakReduce, EveryCellIsInSomePixelAndAPixelShowsItsLargest) {
  for (int n : {7, 300, 1500, 3000})
    for (int m : {1, 2, 3, 100, 299, 512, 1024}) {
      if (m > n) continue;
      int next = 0;  // cells covered so far, in order
      for (int p = 0; p < m; ++p) {
        ASSERT_LE(reduce_first(p, n, m), next) << "a gap before pixel " << p << " (n " << n << ", m " << m << ")";
        ASSERT_GT(reduce_end(p, n, m), reduce_first(p, n, m));
        next = std::max(next, reduce_end(p, n, m));
      }
      EXPECT_EQ(next, n) << "every cell is covered (n " << n << ", m " << m << ")";
    }
}

// The finding of issue 14: 8 isolated weight-1.0 peaks in a T x T map, drawn smaller. Subsampling
// (GL_NEAREST) kept 1 of 8 at T = 1500; block maxima keep all 8 at any size.
TEST(PeakReduce, EightIsolatedPeaksSurviveAnySize) {
  for (int T : {300, 1500, 3000}) {
    Map a = Map::Constant(T, T, 1.0f / float(T));
    for (int i = 0; i < 8; ++i) a((i * 389 + 17) % T, (i * 613 + 101) % T) = 1.0f;
    for (int m : {T, T / 2, 333, 160, 61}) {
      const Map r = block_max(a, m, m);
      int peaks = 0;
      for (Eigen::Index i = 0; i < r.size(); ++i) peaks += r.data()[i] == 1.0f;
      EXPECT_GE(peaks, 8) << "T " << T << " on " << m << " pixels";  // a peak may show in two overlapping blocks
    }
  }
}

TEST(PeakReduce, BlockPeakNamesTheLargestCell) {
  Map a = Map::Zero(10, 10);
  a(7, 3) = 0.9f;
  a(6, 2) = 0.4f;
  const BlockPeak b = block_peak(a, 2, 1, 3, 3);  // pixel (2, 1) of 3 x 3 covers rows 6..9, cols 3..6
  EXPECT_EQ(b.row0, 6);
  EXPECT_EQ(b.row1, 10);
  EXPECT_EQ(b.col0, 3);
  EXPECT_EQ(b.col1, 7);
  EXPECT_EQ(b.row, 7);
  EXPECT_EQ(b.col, 3);
  const Map nan = Map::Constant(4, 4, std::nanf(""));
  EXPECT_EQ(block_max(nan, 2, 2)(0, 0), 0.0f) << "NaN counts as 0, as in the shader";
}

// block_max against the rule written out cell by cell (every pixel's block, its largest value, NaN
// as 0, a block of masked cells only keeping the mask), for sizes that divide and that do not, with
// masked triangles (a causal map) and NaN.
TEST(PeakReduce, BlockMaxEqualsTheRuleCellByCell) {
  for (int rows : {1, 5, 64, 257})
    for (int cols : {1, 7, 257, 300}) {
      Map t(rows, cols);
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) t(r, c) = c > r ? -1.0f : std::fmod(float(r * 31 + c * 17) * 0.618f, 1.0f);
      if (rows > 3 && cols > 3) t(3, 2) = std::nanf("");
      for (int out_r : {1, 2, rows / 3 + 1, rows})
        for (int out_c : {1, 3, cols / 4 + 1, cols}) {
          const Map got = block_max(t, out_r, out_c);
          ASSERT_EQ(got.rows(), std::min(out_r, rows));
          ASSERT_EQ(got.cols(), std::min(out_c, cols));
          for (int pr = 0; pr < got.rows(); ++pr)
            for (int pc = 0; pc < got.cols(); ++pc) {
              const int r0 = reduce_first(pr, rows, int(got.rows())), r1 = reduce_end(pr, rows, int(got.rows()));
              const int c0 = reduce_first(pc, cols, int(got.cols())), c1 = reduce_end(pc, cols, int(got.cols()));
              float want = 0.0f;
              bool masked = true;
              for (int r = r0; r < r1; ++r)
                for (int c = c0; c < c1; ++c) {
                  if (!(t(r, c) < 0.0f)) masked = false;
                  if (t(r, c) > want) want = t(r, c);
                }
              if (masked) want = t(r0, c0);
              ASSERT_EQ(got(pr, pc), want) << rows << " x " << cols << " on " << out_r << " x " << out_c << ", pixel (" << pr
                                           << ", " << pc << ")";
            }
        }
    }
}

}  // namespace
}  // namespace hs
