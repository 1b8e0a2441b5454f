// Minimal pairs (core/analysis/contrast.h): the token alignment on insertions, deletions and
// replacements, and the change scores' properties on hand-made maps.
#include "core/analysis/contrast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/util/errors.h"

namespace hs {
namespace {

// "=a", "~a/b" (replaced), "-a" (deleted), "+b" (inserted), one per step.
std::string describe(const TokenAlignment& al, const std::vector<int>& a, const std::vector<int>& b) {
  std::string out;
  for (const AlignStep& s : al.steps) {
    if (!out.empty()) out += ' ';
    switch (s.op) {
      case AlignOp::same: out += "=" + std::to_string(a[size_t(s.a)]); break;
      case AlignOp::replaced: out += "~" + std::to_string(a[size_t(s.a)]) + "/" + std::to_string(b[size_t(s.b)]); break;
      case AlignOp::deleted: out += "-" + std::to_string(a[size_t(s.a)]); break;
      case AlignOp::inserted: out += "+" + std::to_string(b[size_t(s.b)]); break;
    }
  }
  return out;
}

std::string aligned(const std::vector<int>& a, const std::vector<int>& b) { return describe(align_tokens(a, b), a, b); }

TEST(Alignment, EqualSequencesAreAllSame) {
  EXPECT_EQ(aligned({1, 2, 3}, {1, 2, 3}), "=1 =2 =3");
  EXPECT_EQ(aligned({}, {}), "");
}

TEST(Alignment, OneReplacedTokenKeepsItsPosition) {
  // "The keys to the cabinet are / is"
  EXPECT_EQ(aligned({1, 10, 11, 12, 13, 20}, {1, 10, 11, 12, 13, 21}), "=1 =10 =11 =12 =13 ~20/21");
  EXPECT_EQ(aligned({5, 6, 7}, {5, 9, 7}), "=5 ~6/9 =7");
}

TEST(Alignment, InsertionsAndDeletions) {
  EXPECT_EQ(aligned({1, 2, 3}, {1, 9, 2, 3}), "=1 +9 =2 =3");
  EXPECT_EQ(aligned({1, 9, 2, 3}, {1, 2, 3}), "=1 -9 =2 =3");
  EXPECT_EQ(aligned({}, {4, 5}), "+4 +5");
  EXPECT_EQ(aligned({4, 5}, {}), "-4 -5");
  EXPECT_EQ(aligned({1, 2}, {1, 2, 7}), "=1 =2 +7");
}

TEST(Alignment, AMultiTokenWordReplacedByOneToken) {
  // "small" = one token 30; "enormous" = three tokens 40 41 42: one replaced, two inserted.
  EXPECT_EQ(aligned({1, 2, 30, 3}, {1, 2, 40, 41, 42, 3}), "=1 =2 ~30/40 +41 +42 =3");
  EXPECT_EQ(aligned({1, 2, 40, 41, 42, 3}, {1, 2, 30, 3}), "=1 =2 ~40/30 -41 -42 =3");
}

TEST(Alignment, LongestCommonSubsequenceInTheMiddle) {
  // The middle 2 8 3 vs 3 2 3: the LCS is "2 3" (length 2).
  const std::vector<int> a{1, 2, 8, 3, 9}, b{1, 3, 2, 3, 9};
  const TokenAlignment al = align_tokens(a, b);
  EXPECT_EQ(al.steps.size() - size_t(al.changed()), 4u);  // 1, 2, 3, 9
  EXPECT_EQ(describe(al, a, b), "=1 +3 =2 -8 =3 =9");
  // The maps between the two sides agree with the steps.
  for (const AlignStep& s : al.steps) {
    if (s.op == AlignOp::same) {
      EXPECT_EQ(al.a_to_b[size_t(s.a)], s.b);
      EXPECT_EQ(al.b_to_a[size_t(s.b)], s.a);
    } else {
      if (s.a >= 0) {
        EXPECT_EQ(al.a_to_b[size_t(s.a)], -1);
      }
      if (s.b >= 0) {
        EXPECT_EQ(al.b_to_a[size_t(s.b)], -1);
      }
    }
  }
}

TEST(Alignment, AHugeDifferingMiddleIsRefused) {
  std::vector<int> a(9000), b(9000);
  for (int i = 0; i < 9000; ++i) a[size_t(i)] = i, b[size_t(i)] = 100000 + i;
  EXPECT_THROW(align_tokens(a, b), InputError);
  // A long shared prefix and suffix cost nothing.
  std::vector<int> c(a), d(a);
  d[4500] = -1;
  EXPECT_EQ(align_tokens(c, d).changed(), 1);
}

// One-head runs from hand-made maps.
AttentionRun one_head(std::vector<std::string> tokens, const Map& map) {
  AttentionRun run;
  run.tokens = std::move(tokens);
  run.attention = {{map}};
  return run;
}

Map uniform_causal(int t) {
  Map m = Map::Zero(t, t);
  for (int i = 0; i < t; ++i) m.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
  return m;
}

TEST(ContrastScores, IdenticalRunsHaveNoChange) {
  const AttentionRun a = one_head({"the", "keys", "are"}, uniform_causal(3));
  const ContrastResult c = contrast_runs(a, a);
  EXPECT_EQ(c.alignment.changed(), 0);
  EXPECT_EQ(c.heads[0][0].distance, 0.0f);
  EXPECT_EQ(c.heads[0][0].changed_a, 0.0f);
}

TEST(ContrastScores, WeightOnAReplacedTokenMovesAsTotalVariation) {
  // A: "x y z", B: "x w z". Row z in A looks at y with 0.8; in B at w with 0.2 (x gets the rest).
  Map a = uniform_causal(3), b = uniform_causal(3);
  a.row(2) << 0.2f, 0.8f, 0.0f;
  b.row(2) << 0.8f, 0.2f, 0.0f;
  const ContrastResult c = contrast_runs(one_head({"x", "y", "z"}, a), one_head({"x", "w", "z"}, b));
  ASSERT_EQ(c.query_rows, 3);  // x, y/w (replaced: one position on both sides) and z
  const HeadChange& h = c.heads[0][0];
  // Row x: no change. Row y/w: [0.5 0.5] both. Row z: 0.5 * (0.6 + 0.6) = 0.6. Mean over 3 rows: 0.2.
  EXPECT_NEAR(h.max_row, 0.6f, 1e-6);
  EXPECT_NEAR(h.distance, 0.2f, 1e-6);
  // Weight on the changed token (y in A, w in B), mean over the 3 rows: (0 + 0.5 + 0.8) / 3 and (0 + 0.5 + 0.2) / 3.
  EXPECT_NEAR(h.changed_a, 1.3f / 3, 1e-6);
  EXPECT_NEAR(h.changed_b, 0.7f / 3, 1e-6);
  // The difference map: B - A at (z, y/w); every step has both sides.
  const Map d = difference_map(a, b, c.alignment);
  ASSERT_EQ(d.rows(), 3);
  EXPECT_NEAR(d(2, 1), -0.6f, 1e-6);
  EXPECT_EQ(paired_labels(c.alignment, {"x", "y", "z"}, {"x", "w", "z"}), (std::vector<std::string>{"x", "y\u2192w", "z"}));
}

TEST(ContrastScores, AnInsertedKeyCountsWithZeroWeightOnTheOtherSide) {
  // A: "x z" ; B: "x new z". Row z: A [0.5 0.5], B [0.25 0.5 0.25] -> 0.5 * (0.25 + 0.5 + 0.25) = 0.5.
  Map a = uniform_causal(2), b = uniform_causal(3);
  b.row(2) << 0.25f, 0.5f, 0.25f;
  const ContrastResult c = contrast_runs(one_head({"x", "z"}, a), one_head({"x", "new", "z"}, b));
  EXPECT_EQ(describe(c.alignment, {0, 1}, {0, 2, 1}), "=0 +2 =1");
  EXPECT_NEAR(c.heads[0][0].max_row, 0.5f, 1e-6);
  // The difference leaves the inserted token's row and column out: [x, z] x [x, z].
  const Map d = difference_map(a, b, c.alignment);
  ASSERT_EQ(d.rows(), 2);
  EXPECT_NEAR(d(1, 1), 0.25f - 0.5f, 1e-6);
  EXPECT_NEAR(d(1, 0), 0.25f - 0.5f, 1e-6);
}

TEST(ContrastScores, AChangeAtTheEndOfACausalTextIsSeenInItsOwnRow) {
  // "the keys are" / "the keys is": in a causal model every row before the change is the same;
  // the replaced last token's row is where the heads differ.
  Map a = uniform_causal(3), b = uniform_causal(3);
  a.row(2) << 0.1f, 0.8f, 0.1f;  // "are" looks at "keys"
  b.row(2) << 0.7f, 0.2f, 0.1f;  // "is" looks at "the"
  const ContrastResult c = contrast_runs(one_head({"the", "keys", "are"}, a), one_head({"the", "keys", "is"}, b));
  EXPECT_NEAR(c.heads[0][0].max_row, 0.6f, 1e-6);
  EXPECT_EQ(c.alignment.steps[size_t(c.heads[0][0].max_row_step)].op, AlignOp::replaced);
  EXPECT_GT(c.heads[0][0].distance, 0.0f);
}

TEST(ContrastScores, ACausalModelCountsTheRowsFromTheFirstChangeOn) {
  // "p.. x y z" / "p.. x w z" after a shared prefix of n tokens; only row z moves (by 0.6, on
  // keys y/w). The prefix rows read the same tokens in both and cannot move: the change is the
  // mean over the two rows from the replaced step on, 0.3, however long the prefix.
  for (const int prefix : {1, 4, 12}) {
    const int t = prefix + 3;
    std::vector<std::string> ta, tb;
    for (int i = 0; i < prefix; ++i) ta.push_back("p" + std::to_string(i));
    tb = ta;
    ta.insert(ta.end(), {"x", "y", "z"});
    tb.insert(tb.end(), {"x", "w", "z"});
    Map a = uniform_causal(t), b = uniform_causal(t);
    a.row(t - 1).setZero(), b.row(t - 1).setZero();
    a(t - 1, t - 3) = 0.2f, a(t - 1, t - 2) = 0.8f;
    b(t - 1, t - 3) = 0.8f, b(t - 1, t - 2) = 0.2f;
    AttentionRun ra = one_head(ta, a), rb = one_head(tb, b);
    ra.info.causal = rb.info.causal = true;
    const ContrastResult c = contrast_runs(ra, rb);
    EXPECT_EQ(c.first_query_step, prefix + 1) << "prefix " << prefix;
    EXPECT_EQ(c.query_rows, 2) << "prefix " << prefix;
    EXPECT_NEAR(c.heads[0][0].distance, 0.3f, 1e-6) << "prefix " << prefix;
    // Without a mask every row can move: all t rows count (the mean shrinks with the prefix).
    ra.info.causal = rb.info.causal = false;
    const ContrastResult open = contrast_runs(ra, rb);
    EXPECT_EQ(open.first_query_step, 0);
    EXPECT_NEAR(open.heads[0][0].distance, 0.6f / float(t), 1e-6) << "prefix " << prefix;
  }
}

TEST(ContrastScores, RunsOfDifferentShapesAreRefused) {
  AttentionRun a = one_head({"x"}, uniform_causal(1));
  AttentionRun b = a;
  b.attention[0].push_back(uniform_causal(1));
  EXPECT_THROW(contrast_runs(a, b), InputError);
}

}  // namespace
}  // namespace hs
