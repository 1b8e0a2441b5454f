// RoPE frequencies of every rope_scaling type against values computed independently (float64
// PyTorch following transformers' modeling_rope_utils.py; the script is in the comments), and
// the rotation's properties: partial rotary leaves the tail alone, norms scale by the attention
// factor, and q_m . k_n depends only on m - n; adjacent pairs (GGUF llama) and rope_freqs factors.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/model/rope.h"

namespace hs {
namespace {

RopeSpec spec(RopeType type, double factor = 1.0) {
  RopeSpec s;
  s.type = type;
  s.theta = 10000.0;
  s.rotary_dim = 16;
  s.factor = factor;
  return s;
}

void expect_frequencies(const RopeFrequencies& f, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(f.inv_freq.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(f.inv_freq[i], want[i], 1e-6 * want[i]) << what << ": inv_freq[" << i << "]";
}

// base = 1 / 10000 ** (arange(0, 16, 2) / 16)
const std::vector<double> kPlain = {1.0, 0.316227766, 0.1, 0.0316227766, 0.01, 0.00316227766, 0.001, 0.000316227766};

TEST(Rope, PlainAndLinear) {
  expect_frequencies(rope_frequencies(spec(RopeType::plain), 10), kPlain, "default");
  std::vector<double> linear;
  for (double f : kPlain) linear.push_back(f / 8.0);
  const RopeFrequencies l = rope_frequencies(spec(RopeType::linear, 8.0), 10);
  expect_frequencies(l, linear, "linear factor 8");
  EXPECT_EQ(l.attention_factor, 1.0f);
}

// torch: b = 10000 * ((2 * 20 / 8) - 1) ** (16 / 14); 1 / b ** (arange(0, 16, 2) / 16)
TEST(Rope, DynamicGrowsTheBaseOnlyPastMaxPositions) {
  RopeSpec s = spec(RopeType::dynamic, 2.0);
  s.max_positions = 8;
  expect_frequencies(rope_frequencies(s, 8), kPlain, "dynamic within max_position_embeddings");
  expect_frequencies(rope_frequencies(s, 20),
                     {1.0, 0.259412817, 0.0672950096, 0.017457188, 0.00452861832, 0.00117478164, 0.000304753414,
                      7.90569415e-05},
                     "dynamic, 20 positions of 8");
}

// transformers' _compute_llama3_parameters with factor 8, low 1, high 4, original 64: the first
// frequency (wavelength 6.3 < 16) stays, those with wavelength > 64 are divided by 8, the two in
// between are smoothed.
TEST(Rope, Llama3) {
  RopeSpec s = spec(RopeType::llama3, 8.0);
  s.low_freq_factor = 1.0;
  s.high_freq_factor = 4.0;
  s.original_max_positions = 64;
  expect_frequencies(rope_frequencies(s, 10),
                     {1.0, 0.244384599, 0.013042256, 0.00395284708, 0.00125, 0.000395284708, 0.000125, 3.95284708e-05},
                     "llama3");
}

// _compute_yarn_parameters, factor 4, original 2048: correction range [2.016, 5.026] -> [2, 6]
// truncated; dimensions below it extrapolate, above it interpolate (/ 4); attention factor
// 0.1 ln 4 + 1.
TEST(Rope, Yarn) {
  RopeSpec s = spec(RopeType::yarn, 4.0);
  s.original_max_positions = 2048;
  const RopeFrequencies f = rope_frequencies(s, 10);
  expect_frequencies(f, {1.0, 0.316227766, 0.1, 0.025693506, 0.00625, 0.00138349648, 0.00025, 7.90569415e-05}, "yarn");
  EXPECT_NEAR(f.attention_factor, 1.138629436, 1e-6);
  s.truncate = false;
  expect_frequencies(rope_frequencies(s, 10),
                     {1.0, 0.316227766, 0.1, 0.0238701923, 0.00505697152, 0.000811290382, 0.00025, 7.90569415e-05},
                     "yarn, truncate false");
  s.attention_factor = 0.5;
  EXPECT_EQ(rope_frequencies(s, 10).attention_factor, 0.5f) << "a configured attention_factor wins";
  s.attention_factor = 0.0;
  s.mscale = 1.0;
  s.mscale_all_dim = 1.0;
  EXPECT_NEAR(rope_frequencies(s, 10).attention_factor, 1.0, 1e-7) << "mscale / mscale_all_dim";
}

// LongRoPE: short factors up to the original context, long ones past it; the attention factor
// sqrt(1 + ln(factor) / ln(original)).
TEST(Rope, LongRope) {
  RopeSpec s = spec(RopeType::longrope, 4.0);
  s.original_max_positions = 16;
  s.short_factor.assign(8, 1.0);
  s.long_factor = {1, 2, 3, 4, 5, 6, 7, 8};
  const RopeFrequencies short_f = rope_frequencies(s, 16);
  expect_frequencies(short_f, kPlain, "longrope, 16 positions of 16");
  const RopeFrequencies long_f = rope_frequencies(s, 17);
  std::vector<double> want;
  for (size_t i = 0; i < kPlain.size(); ++i) want.push_back(kPlain[i] / double(i + 1));
  expect_frequencies(long_f, want, "longrope, 17 positions of 16");
  EXPECT_NEAR(long_f.attention_factor, std::sqrt(1.0 + std::log(4.0) / std::log(16.0)), 1e-6);
  EXPECT_EQ(short_f.attention_factor, long_f.attention_factor) << "the factor does not depend on the length";
}

Map random_rows(int rows, int cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Map m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

// Pairs (i, i + r) turn; dimensions past rotary_dim stay; each pair's norm is kept (times the
// attention factor); position 0 turns nothing.
TEST(Rope, RotationIsPartialAndKeepsNorms) {
  RopeSpec s = spec(RopeType::plain);
  s.rotary_dim = 6;  // of a head of 10
  RopeFrequencies f = rope_frequencies(s, 5);
  f.attention_factor = 1.5f;
  const Map x = random_rows(5, 20, 3);  // 2 heads of 10
  Map y = x;
  apply_rope(y, 2, 10, f, 0);
  for (int t = 0; t < 5; ++t)
    for (int h = 0; h < 2; ++h) {
      for (int j = 6; j < 10; ++j) EXPECT_EQ(y(t, h * 10 + j), x(t, h * 10 + j)) << "pass-through dim " << j;
      for (int i = 0; i < 3; ++i) {
        const float n0 = std::hypot(x(t, h * 10 + i), x(t, h * 10 + i + 3));
        const float n1 = std::hypot(y(t, h * 10 + i), y(t, h * 10 + i + 3));
        EXPECT_NEAR(n1, 1.5f * n0, 1e-5f) << "position " << t << " pair " << i;
      }
    }
  for (int j = 0; j < 6; ++j) EXPECT_NEAR(y(0, j), 1.5f * x(0, j), 1e-6f) << "position 0";
}

// q at position m and k at position n: the rotated dot product depends only on m - n.
TEST(Rope, DotProductsDependOnRelativePosition) {
  const RopeFrequencies f = rope_frequencies(spec(RopeType::plain), 40);
  const Map q = random_rows(1, 16, 5), k = random_rows(1, 16, 6);
  auto dot_at = [&](int m, int n) {
    Map qm = q, kn = k;
    apply_rope(qm, 1, 16, f, m);
    apply_rope(kn, 1, 16, f, n);
    return qm.row(0).dot(kn.row(0));
  };
  EXPECT_NEAR(dot_at(7, 3), dot_at(30, 26), 1e-4f);
  EXPECT_NEAR(dot_at(5, 5), q.row(0).dot(k.row(0)), 1e-4f);
}

// GGUF's "llama" architecture: llama.cpp's converter permuted each head's q/k dimensions from
// Hugging Face's order (pair i = dims (i, i + dh/2)) to adjacent pairs (2i, 2i+1):
//   converted[2i + j] = original[j * dh/2 + i]
// RoPE on adjacent pairs of the converted rows must equal rotate_half RoPE on the original rows,
// converted, with any frequencies (here yarn's, with an attention factor).
TEST(Rope, AdjacentPairsOnConvertedRowsEqualHalfPairs) {
  RopeSpec s = spec(RopeType::yarn, 4.0);
  s.original_max_positions = 8;
  const RopeFrequencies f = rope_frequencies(s, 20);
  ASSERT_NE(f.attention_factor, 1.0f);
  const int heads = 3, dh = 16, half = dh / 2;
  const Map x = random_rows(20, heads * dh, 9);
  Map converted(x.rows(), x.cols());
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < half; ++i)
      for (int j = 0; j < 2; ++j) converted.col(h * dh + 2 * i + j) = x.col(h * dh + j * half + i);
  Map y = x, z = converted;
  apply_rope(y, heads, dh, f, 3, RopePairs::half);
  apply_rope(z, heads, dh, f, 3, RopePairs::adjacent);
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < half; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT_EQ(z.col(h * dh + 2 * i + j), y.col(h * dh + j * half + i)) << "head " << h << " pair " << i;
}

// GGUF's rope_freqs (Llama 3.x as llama.cpp stores it): every frequency divided by its factor, after
// the type's own scaling.
TEST(Rope, FrequencyFactorsDivideTheFrequencies) {
  RopeSpec s = spec(RopeType::linear, 2.0);
  s.freq_factors = {1.0, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0, 8.0};
  std::vector<double> want;
  for (size_t i = 0; i < kPlain.size(); ++i) want.push_back(kPlain[i] / 2.0 / s.freq_factors[i]);
  expect_frequencies(rope_frequencies(s, 10), want, "linear 2 with rope_freqs");
}

}  // namespace
}  // namespace hs
