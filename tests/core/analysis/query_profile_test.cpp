// The Query view's and difference table's data: query profiles and sorted head pairs.
#include "core/analysis/query_profile.h"

#include <gtest/gtest.h>

#include "core/analysis/head_pairs.h"

namespace hs {
namespace {

TEST(QueryProfile, SumsRowsAndPairsSort) {
  LayerMaps heads(2, Map::Constant(3, 3, 1.0f / 3));
  heads[1](2, 0) = 1.0f, heads[1](2, 1) = 0.0f, heads[1](2, 2) = 0.0f;
  const Map p = query_profile(heads, {0, 2, 7});  // 7 is out of range: ignored
  ASSERT_EQ(p.rows(), 2);
  EXPECT_NEAR(p.row(0).sum(), 2.0f, 1e-6f);
  EXPECT_NEAR(p(1, 0), 1.0f / 3 + 1.0f, 1e-6f);
  Map d(3, 3);
  d << 0, 0.2f, 0.1f, 0.2f, 0, 0.3f, 0.1f, 0.3f, 0;
  const Map t = d * 5.0f;  // a distance that orders the pairs the other way round
  const Map dist = Map::Constant(3, 3, 1.0f) - t;
  const auto pairs = sorted_pairs(dist, d, PairSort::difference, true);
  ASSERT_EQ(pairs.size(), 3u);
  EXPECT_EQ(pairs[0].a, 1);
  EXPECT_EQ(pairs[0].b, 2);
  EXPECT_FLOAT_EQ(pairs[0].distance, dist(1, 2));
  const auto by_distance = sorted_pairs(dist, d, PairSort::distance, true);
  EXPECT_EQ(by_distance[0].a, 0);
  EXPECT_EQ(by_distance[0].b, 2);
  EXPECT_EQ(sorted_pairs(dist, d, PairSort::a, false)[0].b, 1);
}

}  // namespace
}  // namespace hs
