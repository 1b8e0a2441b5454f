// Long-input path (core/model/compact_maps.h): the streamed engine and CompactRecorder must give
// what the whole-map path gives. Oracle: the same run with MapRecorder (every [T, T] map kept),
// block-maxed and entropy-summed here independently; exact rows must equal the full maps' rows.
#include <gtest/gtest.h>

#include <limits>

#include <cmath>

#include "core/analysis/head_stats.h"
#include "core/model/attention_layer.h"
#include "core/model/attention_weights.h"
#include "core/model/compact_maps.h"
#include "core/model/model_run.h"
#include "core/model/rng.h"
#include "core/util/errors.h"

namespace hs {
namespace {

Map random_input(int T, int d, uint64_t seed) {
  Map x(T, d);
  Rng rng(seed);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = float(rng.uniform() * 2.0 - 1.0);
  return x;
}

struct Case {
  const char* name;
  int d_model, heads, groups, T, display;
  bool causal;
  int window;
  float temperature;
  float scale = 0.0f, softcap = 0.0f;
};

class CompactMaps : public ::testing::TestWithParam<Case> {};

TEST_P(CompactMaps, MatchesTheWholeMapPath) {
  const Case k = GetParam();
  AttentionConfig c;
  c.d_model = k.d_model;
  c.n_heads = k.heads;
  c.n_kv_heads = k.groups;
  c.causal = k.causal;
  c.window = k.window;
  c.temperature = k.temperature;
  c.scale = k.scale;
  c.softcap = k.softcap;
  c.validate();
  const AttentionWeights w = init_attention_weights(c, 11);
  const Map x = random_input(k.T, k.d_model, 5) * 3.0f;

  MapRecorder full(1, k.heads);
  const Map out_full = attention_layer_forward(x, w, c, 0, &full, 2);
  CompactRecorder compact(1, k.heads, k.T, k.display);
  const Map out_compact = attention_layer_forward(x, w, c, 0, &compact, 2);

  EXPECT_LE((out_full - out_compact).cwiseAbs().maxCoeff(), 1e-5f) << k.name << ": outputs differ";
  const int f = compact.factor(), p = (k.T + f - 1) / f;
  ASSERT_LE(p, k.display);
  const ExactAttention exact(c, compact.queries, compact.keys);
  for (int h = 0; h < k.heads; ++h) {
    const Map& a = full.attention[0][size_t(h)];  // [T, T]
    const CompactHead& got = compact.heads[0][size_t(h)];
    ASSERT_EQ(got.display.rows(), p);
    ASSERT_EQ(got.display.cols(), p);
    for (int r = 0; r < p; ++r)
      for (int s = 0; s < p; ++s) {
        const int i0 = r * f, j0 = s * f;
        const float want = a.block(i0, j0, std::min(f, k.T - i0), std::min(f, k.T - j0)).maxCoeff();
        ASSERT_NEAR(got.display(r, s), want, 1e-6f) << k.name << " head " << h << " display cell (" << r << ", " << s
                                                    << ") covering queries " << i0 << "+ keys " << j0 << "+";
      }
    EXPECT_NEAR(got.mean_entropy(k.T), mean_entropy(a), 1e-4f) << k.name << " head " << h;
    EXPECT_NEAR(got.max, a.maxCoeff(), 1e-6f) << k.name << " head " << h;
    if (k.T > 1) {
      EXPECT_NEAR(got.max_skip_first, a.rightCols(k.T - 1).maxCoeff(), 1e-6f) << k.name << " head " << h;
    }
    for (int i : {0, k.T / 2, k.T - 1}) {
      const Vec row = exact.row(0, h, i);
      for (int j = 0; j < k.T; ++j)
        ASSERT_NEAR(row[j], a(i, j), 1e-6f) << k.name << " head " << h << " exact cell (" << i << ", " << j << ")";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Variants, CompactMaps,
    ::testing::Values(Case{"plain", 24, 4, 0, 301, 64, false, -1, 1.0f},
                      Case{"causal_gqa", 24, 6, 2, 257, 50, true, -1, 1.0f},
                      Case{"window", 16, 2, 0, 200, 200, false, 7, 1.0f},
                      Case{"causal_window_temperature", 16, 4, 1, 129, 16, true, 20, 0.3f},
                      Case{"one_token", 8, 2, 0, 1, 4, false, -1, 1.0f},
                      Case{"scale_softcap_window", 16, 4, 2, 190, 40, true, 11, 1.0f, 0.7f, 0.9f}),
    [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

// Layers that differ (a local window on layer 0, global layer 1): each layer's exact rows use
// that layer's config.
TEST(CompactMaps, ExactRowsFollowEachLayersConfig) {
  AttentionConfig local;
  local.d_model = 8;
  local.n_heads = 2;
  local.causal = true;
  local.window = 2;
  local.softcap = 1.0f;
  AttentionConfig global = local;
  global.window = -1;
  const AttentionWeights w = init_attention_weights(local, 3);
  const Map x = random_input(20, 8, 4) * 3.0f;
  MapRecorder full(2, 2);
  CompactRecorder rec(2, 2, 20, 5);
  ObserverPair both(&full, &rec);
  attention_layer_forward(x, w, local, 0, &both, 1);
  attention_layer_forward(x, w, global, 1, &both, 1);
  const ExactAttention exact(std::vector<AttentionConfig>{local, global}, rec.queries, rec.keys);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h)
      for (int i = 0; i < 20; ++i) {
        const Vec row = exact.row(l, h, i);
        for (int j = 0; j < 20; ++j)
          ASSERT_NEAR(row[j], full.attention[size_t(l)][size_t(h)](i, j), 1e-6f) << "layer " << l << " head " << h << " cell (" << i << ", " << j << ")";
      }
  EXPECT_EQ(exact.row(0, 0, 10)[5], 0.0f) << "layer 0's window hides key 5 from query 10";
  EXPECT_GT(exact.row(1, 0, 10)[5], 0.0f) << "layer 1 is global";
}

TEST(CompactMaps, ExactRowsRejectIndicesOutOfRange) {
  AttentionConfig c;
  c.d_model = 8;
  c.n_heads = 2;
  CompactRecorder rec(1, 2, 10, 4);
  attention_layer_forward(random_input(10, 8, 1), init_attention_weights(c, 1), c, 0, &rec, 1);
  const ExactAttention exact(c, rec.queries, rec.keys);
  EXPECT_THROW(exact.row(0, 2, 0), InputError);
  EXPECT_THROW(exact.row(1, 0, 0), InputError);
  EXPECT_THROW(exact.row(0, 0, 10), InputError);
  EXPECT_THROW(exact.cell(0, 0, 0, -1), InputError);
  EXPECT_THROW(compact_factor(10, 0), InputError);
}

// tokens + display_size - 1 wrapped for a display size near INT_MAX (issue 15's flag edges).
TEST(CompactMaps, HugeDisplaySizesDoNotWrap) {
  const int kIntMax = std::numeric_limits<int>::max();
  EXPECT_EQ(compact_factor(10, kIntMax), 1);
  EXPECT_EQ(compact_factor(65536, kIntMax - 1), 1);
  EXPECT_EQ(compact_factor(65536, 1024), 64);
  EXPECT_EQ(compact_factor(65537, 1024), 65);
}

}  // namespace
}  // namespace hs
