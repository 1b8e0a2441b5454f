// Attention rollout (core/analysis/rollout.h): identity attention rolls out to the identity, rows
// sum to 1, causal stays causal, and two layers compose as the definition says.
#include "core/analysis/rollout.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/model/attention_layer.h"

namespace hs {
namespace {

Map uniform_causal(int T) {
  Map a = Map::Zero(T, T);
  for (int i = 0; i < T; ++i) a.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
  return a;
}

TEST(Rollout, OneLayerOfIdentityAttentionIsTheIdentity) {
  const ModelMaps maps = {{Map::Identity(5, 5), Map::Identity(5, 5)}};
  EXPECT_TRUE(attention_rollout(maps).isApprox(Map::Identity(5, 5), 0.0f));
}

TEST(Rollout, RowsSumToOneAndCausalStaysCausal) {
  const ModelMaps maps = {{uniform_causal(6), Map::Identity(6, 6)}, {uniform_causal(6), uniform_causal(6)}};
  const Map r = attention_rollout(maps);
  ASSERT_EQ(r.rows(), 6);
  for (int i = 0; i < 6; ++i) {
    EXPECT_NEAR(r.row(i).sum(), 1.0f, 1e-6f) << "row " << i;
    for (int j = i + 1; j < 6; ++j) EXPECT_EQ(r(i, j), 0.0f) << i << ", " << j;
  }
}

TEST(Rollout, TwoLayersComposeWithTheResidualIdentity) {
  const int T = 4;
  const Map a0 = uniform_causal(T), a1 = Map::Identity(T, T);
  const ModelMaps maps = {{a0}, {a1}};
  const Map hat0 = 0.5f * a0 + 0.5f * Map::Identity(T, T), hat1 = Map::Identity(T, T);
  EXPECT_TRUE(attention_rollout(maps).isApprox(hat1 * hat0, 1e-6f));
  EXPECT_TRUE(attention_rollout(maps, 1).isApprox(hat0, 1e-6f)) << "first layer only";
  EXPECT_EQ(attention_rollout(ModelMaps{}).size(), 0);
}

// A causal window of W per layer: query i sees keys i - W .. i, so the rollout through L layers
// reaches back L * W (a path of one step per layer) and no further; the mask says exactly that.
Map causal_window(int T, int W) {
  Map a = Map::Zero(T, T);
  for (int i = 0; i < T; ++i) {
    const int lo = std::max(0, i - W);
    a.row(i).segment(lo, i - lo + 1).setConstant(1.0f / float(i - lo + 1));
  }
  return a;
}

TEST(Rollout, MaskOfWindowedLayersIsTheirSummedWindow) {
  const int T = 12, W = 2, L = 3;
  ModelInfo info;
  info.causal = true;
  info.window = W;
  ModelMaps maps;
  for (int l = 0; l < L; ++l) maps.push_back({causal_window(T, W)});
  const Map r = attention_rollout(maps);
  const AttentionConfig mask = rollout_mask(info, L);
  EXPECT_TRUE(mask.causal);
  EXPECT_EQ(mask.window, L * W);
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      EXPECT_EQ(r(i, j) > 0.0f, key_visible(mask, i, j)) << "cell " << i << ", " << j << ": rollout " << r(i, j);
  // Layer 0's own mask (window 2) would hide cells the rollout fills.
  EXPECT_GT(r(T - 1, T - 1 - L * W), 0.0f);
}

TEST(Rollout, MaskOfGlobalOrBidirectionalLayers) {
  ModelInfo info;
  info.causal = true;
  info.layer_windows = {4, -1, 4};  // a global layer reaches every earlier key
  EXPECT_TRUE(rollout_mask(info, 3).causal);
  EXPECT_EQ(rollout_mask(info, 3).window, -1);
  info.causal = false;
  info.layer_windows.clear();
  EXPECT_FALSE(rollout_mask(info, 2).causal);
  EXPECT_EQ(rollout_mask(info, 2).window, -1);
}

}  // namespace
}  // namespace hs
