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

}  // namespace
}  // namespace hs
