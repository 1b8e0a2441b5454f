// Head clustering (core/analysis/head_clustering.h): two obvious groups end up side by side,
// the merges form a valid dendrogram, and edge cases (one head, none) hold.
#include "core/analysis/head_clustering.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace hs {
namespace {

// Heads 0, 2, 4 are near each other, 1, 3 near each other, the groups far apart.
Map two_groups() {
  const int H = 5;
  Map d(H, H);
  for (int a = 0; a < H; ++a)
    for (int b = 0; b < H; ++b) d(a, b) = a == b ? 0.0f : (a % 2 == b % 2 ? 0.1f + 0.01f * float(a + b) : 0.9f);
  return d;
}

TEST(HeadClustering, SimilarHeadsSitTogether) {
  const HeadClustering c = cluster_heads(two_groups());
  ASSERT_EQ(c.order.size(), 5u);
  EXPECT_EQ(std::set<int>(c.order.begin(), c.order.end()), (std::set<int>{0, 1, 2, 3, 4})) << "a permutation";
  // The even heads form one contiguous run, the odd ones the other.
  std::vector<int> parity;
  for (int h : c.order) parity.push_back(h % 2);
  const int changes = int(std::count_if(parity.begin() + 1, parity.end(),
                                        [&, i = 0](int p) mutable { return p != parity[size_t(i++)]; }));
  EXPECT_EQ(changes, 1) << "the two groups are contiguous";
  ASSERT_EQ(c.merges.size(), 4u);
  EXPECT_NEAR(c.merges.back().distance, 0.9f, 1e-6f) << "the groups join last, at their distance";
  EXPECT_EQ(c.merges.back().size, 5);
  for (size_t k = 1; k < c.merges.size(); ++k) EXPECT_GE(c.merges[k].distance, c.merges[k - 1].distance) << "UPGMA is monotone";
  // Each merge joins clusters that exist: heads, or earlier merges.
  for (size_t k = 0; k < c.merges.size(); ++k) {
    EXPECT_LT(c.merges[k].a, 5 + int(k));
    EXPECT_LT(c.merges[k].b, 5 + int(k));
  }
}

TEST(HeadClustering, OneHeadAndNone) {
  const HeadClustering one = cluster_heads(Map::Zero(1, 1));
  EXPECT_EQ(one.order, std::vector<int>{0});
  EXPECT_TRUE(one.merges.empty());
  EXPECT_TRUE(cluster_heads(Map()).order.empty());
}

}  // namespace
}  // namespace hs
