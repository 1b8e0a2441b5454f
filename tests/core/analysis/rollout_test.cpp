// Attention rollout (core/analysis/rollout.h): identity attention rolls out to the identity, rows
// sum to 1, causal stays causal, and two layers compose as the definition says.
#include "core/analysis/rollout.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace hs
