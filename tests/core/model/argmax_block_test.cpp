// The next-token argmax taken a block at a time (core/model/argmax_block.h) against the rule it
// replaces: testing every value in order, ties to the lowest id, NaN never replacing.
#include "core/model/argmax_block.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace hs {
namespace {

ArgmaxState every_value_in_order(const std::vector<float>& row) {
  ArgmaxState s;
  for (size_t j = 0; j < row.size(); ++j)
    if (s.index < 0 || row[j] > s.value) s.value = row[j], s.index = int64_t(j);
  return s;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

TEST(ArgmaxBlock, EqualsTestingEveryValueInOrder) {
  std::mt19937 rng(11);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // Few distinct values (many ties), signed zeros, infinities and NaNs.
  const std::vector<float> pool = {-1.0f, 0.5f, 2.0f, 2.0f, 0.0f, -0.0f, -inf, inf, nan, 3.25f, -7.0f};
  int tested = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int n = int(rng() % 300) + 1;
    std::vector<float> row(static_cast<size_t>(n));
    const int kind = trial % 4;
    for (float& v : row) {
      if (kind == 0) v = pool[rng() % pool.size()];
      else if (kind == 1) v = std::uniform_real_distribution<float>(-5.0f, 5.0f)(rng);
      else if (kind == 2) v = float(int(rng() % 7)) - 3.0f;  // ties everywhere
      else v = (rng() % 50 == 0) ? nan : (rng() % 40 == 0 ? -0.0f : float(int(rng() % 5)));
    }
    const ArgmaxState want = every_value_in_order(row);
    // Whole, and split into blocks of random sizes (as argmax_wt hands over its 256-wide blocks).
    ArgmaxState whole;
    argmax_block(row.data(), n, 0, whole);
    ArgmaxState parts;
    for (int first = 0; first < n;) {
      const int len = std::min(n - first, int(rng() % 100) + 1);
      argmax_block(row.data() + first, len, first, parts);
      first += len;
    }
    for (const ArgmaxState& got : {whole, parts}) {
      ASSERT_EQ(got.index, want.index) << "trial " << trial << ", n " << n;
      ASSERT_TRUE(same_bits(got.value, want.value)) << "trial " << trial;
      ++tested;
    }
  }
  EXPECT_EQ(tested, 8000);
}

TEST(ArgmaxBlock, TiesGoToTheLowestIdAndALeadingNanStays) {
  std::vector<float> row(64, 1.0f);
  row[40] = 5.0f, row[50] = 5.0f;
  ArgmaxState s;
  argmax_block(row.data(), 64, 100, s);
  EXPECT_EQ(s.index, 140);
  row[0] = std::numeric_limits<float>::quiet_NaN();
  ArgmaxState t;
  argmax_block(row.data(), 64, 0, t);
  EXPECT_EQ(t.index, 0) << "testing in order: nothing is greater than a NaN that came first";
}

}  // namespace
}  // namespace hs
