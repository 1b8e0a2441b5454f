// Reachable keys (a key some query can make its top key: a vertex of the hull of the head's keys)
// and rows that agree (ranking the visible keys as the last query does, or reversed). The
// independent oracle is tests/core/analysis/reachable_keys_reference.py (SciPy); these are the
// properties and the reproduction: with d_model 8 and 8 heads, every head is width 1, its
// map is column stripes, it can pick only its smallest- or largest-k key, and every row agrees.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/head_reach.h"
#include "core/analysis/reachable_keys.h"
#include "core/analysis/run_analysis.h"
#include "core/model/rng.h"

namespace hs {
namespace {

const char* kSentence = "the keys that Priya left on the table were not hers";

Map random_keys(int T, int d, uint64_t seed) {
  Rng rng(seed);
  Map k(T, d);
  for (Eigen::Index i = 0; i < k.size(); ++i) k.data()[i] = float(rng.normal());
  return k;
}

// Brute force for width 1: the keys equal to the smallest or the largest k.
std::vector<int> extremes(const Map& k) {
  std::vector<int> out;
  for (int j = 0; j < k.rows(); ++j)
    if (k(j, 0) == k.col(0).minCoeff() || k(j, 0) == k.col(0).maxCoeff()) out.push_back(j);
  return out;
}

TEST(ReachableKeys, WidthOneReachesTheSmallestAndLargestKey) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    const Map k = random_keys(11, 1, seed);
    EXPECT_EQ(reachable_keys(k), extremes(k)) << "seed " << seed;
  }
}

TEST(ReachableKeys, CornersOfASquareButNotItsCentreOrEdges) {
  Map k(7, 2);
  k << 0, 0, 1, 0, 1, 1, 0, 1, 0.5f, 0.5f, 0.5f, 0, 0.25f, 0.75f;  // 4 corners, the centre, an edge's middle, inside
  EXPECT_EQ(reachable_keys(k), (std::vector<int>{0, 1, 2, 3}));
}

TEST(ReachableKeys, IdenticalKeysAreOnePointAndEveryCopyIsListed) {
  Map k(5, 2);
  k << 0, 0, 1, 0, 0, 1, 1, 0, 0.2f, 0.2f;  // key 3 is key 1 again
  EXPECT_EQ(reachable_keys(k), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(reachable_keys(Map::Constant(4, 3, 2.5f)), (std::vector<int>{0, 1, 2, 3})) << "one point: all tie";
}

TEST(ReachableKeys, AShiftOfEveryKeyChangesNothing) {
  const Map k = random_keys(15, 3, 7);
  Map shifted = k;
  shifted.rowwise() += Eigen::RowVector3f(10, -4, 2.5f);
  EXPECT_EQ(reachable_keys(k), reachable_keys(shifted));
}

TEST(ReachableKeys, EveryKeyFromWidthTMinusOne) {
  for (int d : {10, 12, 20}) EXPECT_EQ(reachable_keys(random_keys(11, d, uint64_t(d))).size(), 11u) << "width " << d;
}

TEST(ReachableKeys, AKeyInsideTheOthersHullNeverWinsAtAnyWidth) {
  for (int d : {2, 4, 8}) {
    Map k = random_keys(12, d, uint64_t(30 + d));
    k.row(5) = (k.row(0) + k.row(1) + k.row(2)) / 3.0f;  // inside the triangle of keys 0, 1, 2
    const std::vector<int> r = reachable_keys(k);
    EXPECT_EQ(std::count(r.begin(), r.end(), 5), 0) << "width " << d;
  }
}

TEST(ReachableKeys, EveryReachableKeyWinsSomeDirectionAndNoOtherDoes) {
  // Sampled directions can only find reachable keys (a lower bound that meets the exact set here).
  const Map k = random_keys(14, 3, 11);
  const std::vector<int> r = reachable_keys(k);
  std::vector<int> won;
  Rng rng(5);
  for (int s = 0; s < 20000; ++s) {
    const Eigen::Vector3f q(float(rng.normal()), float(rng.normal()), float(rng.normal()));
    Eigen::Index best = 0;
    (k * q).maxCoeff(&best);
    won.push_back(int(best));
  }
  std::sort(won.begin(), won.end());
  won.erase(std::unique(won.begin(), won.end()), won.end());
  EXPECT_EQ(won, r);
}

TEST(ReachableKeys, HullDistanceIsTheL1Distance) {
  Eigen::MatrixXd others(2, 2);
  others << 0, 0, 2, 0;  // a segment on the x axis
  EXPECT_NEAR(hull_distance_l1(others, Eigen::Vector2d(1, 3)), 3.0, 1e-12);
  EXPECT_NEAR(hull_distance_l1(others, Eigen::Vector2d(3, 1)), 2.0, 1e-12);
  EXPECT_NEAR(hull_distance_l1(others, Eigen::Vector2d(0.5, 0)), 0.0, 1e-12);
}

TEST(RowsThatAgree, RankingsOfRowsAgainstTheLast) {
  // Width 1: scores q_i k_j. Rows with q_i > 0 rank as the last row (q > 0), q_i < 0 reversed.
  const Eigen::VectorXf q = (Eigen::VectorXf(5) << 1, -2, 0.5f, -1, 3).finished();
  const Eigen::VectorXf k = (Eigen::VectorXf(5) << 0.3f, -1, 2, 0.7f, -0.2f).finished();
  const Map s = q * k.transpose();  // [5, 5]
  HeadReach r;
  count_agreeing_rows(s, s, r);
  EXPECT_EQ(r.ranked_rows, 5);
  EXPECT_EQ(r.agreeing_rows, 5);
  // A row that ranks the keys in another order disagrees.
  Map t = s;
  t.row(2) << 5, 4, 1, 2, 3;
  count_agreeing_rows(t, t, r);
  EXPECT_EQ(r.agreeing_rows, 4);
  // Under a causal mask rows with fewer than 3 visible keys are not counted.
  Map masked = s;
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) masked(i, j) = -INFINITY;
  count_agreeing_rows(s, masked, r);
  EXPECT_EQ(r.ranked_rows, 3);
  EXPECT_EQ(r.agreeing_rows, 3);
  EXPECT_FLOAT_EQ(r.agreeing_share(), 1.0f);
}

ModelRequest synthetic(int heads, bool causal) {
  ModelRequest r;
  r.sentence = kSentence;
  r.attention.d_model = 8;
  r.attention.n_heads = heads;
  r.attention.causal = causal;
  return r;
}

// The finding: --d-model 8 --heads 8 makes every head width 1: column stripes (each row's
// largest weight on the key with the largest or the smallest k), 2 keys reachable (and copies of
// them), every row agreeing.
TEST(HeadReach, WidthOneHeadsAreColumnStripes) {
  for (bool causal : {false, true}) {
    const auto a = analyse(synthetic(8, causal));
    ASSERT_EQ(a->run.info.d_head, 1);
    ASSERT_EQ(a->reach.size(), 1u);
    ASSERT_EQ(a->reach[0].size(), 8u);
    const int T = a->run.n_tokens();
    for (int h = 0; h < 8; ++h) {
      const HeadReach& r = a->reach[0][size_t(h)];
      const Map k = a->run.keys[0].middleCols(h, 1);  // [T, 1]
      EXPECT_EQ(r.reachable_keys, extremes(k)) << "h" << h;
      EXPECT_EQ(r.agreeing_rows, r.ranked_rows) << "h" << h;
      EXPECT_EQ(r.ranked_rows, causal ? T - 2 : T);
      if (causal) continue;
      for (int i = 0; i < T; ++i) {  // each row's top key is a reachable one
        Eigen::Index top = 0;
        a->run.attention[0][size_t(h)].row(i).maxCoeff(&top);
        EXPECT_TRUE(std::count(r.reachable_keys.begin(), r.reachable_keys.end(), int(top))) << "h" << h << " row " << i;
      }
    }
  }
}

TEST(HeadReach, AWidthEightHeadReachesMoreAndItsRowsDisagree) {
  const auto a = analyse(synthetic(1, false));
  ASSERT_EQ(a->run.info.d_head, 8);
  const HeadReach& r = a->reach.at(0).at(0);
  EXPECT_GT(r.reachable_keys.size(), 4u);
  EXPECT_LT(r.agreeing_rows, r.ranked_rows);
}

TEST(HeadReach, GroupedQueryHeadsRepeatTheirKeyValueHeadsList) {
  ModelRequest q = synthetic(4, true);
  q.attention.n_kv_heads = 2;
  const auto a = analyse(q);
  EXPECT_EQ(a->reach[0][0].reachable_keys, a->reach[0][1].reachable_keys);
  EXPECT_EQ(a->reach[0][2].reachable_keys, a->reach[0][3].reachable_keys);
}

TEST(HeadReach, NotComputedWhenNotAskedOrWithoutKeys) {
  AnalysisOptions o;
  o.reach = false;
  EXPECT_TRUE(analyse(synthetic(4, false), o)->reach.empty());
  o.reach = true;
  o.spectrum = false;
  EXPECT_EQ(analyse(synthetic(4, false), o)->reach.size(), 1u) << "reach keeps the keys itself";
}

}  // namespace
}  // namespace hs
