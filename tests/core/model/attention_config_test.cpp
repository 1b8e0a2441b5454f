// Shapes, validation messages and the parameter count of one attention layer.
#include <gtest/gtest.h>

#include <string>

#include "core/model/attention_config.h"
#include "core/model/attention_weights.h"
#include "core/util/errors.h"

namespace hs {
namespace {

AttentionConfig config(int d, int H, int G = 0, int dh = 0) {
  AttentionConfig c;
  c.d_model = d;
  c.n_heads = H;
  c.n_kv_heads = G;
  c.d_head = dh;
  return c;
}

// The message of the InputError validate() throws ("" when it does not throw).
std::string validate_message(const AttentionConfig& c) {
  try {
    c.validate();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Learned numbers of the weights init_attention_weights actually allocates.
int64_t allocated_params(const AttentionConfig& c) {
  const AttentionWeights w = init_attention_weights(c, 1);
  int64_t n = w.w_q.size() + w.w_k.size() + w.w_v.size() + w.w_o.size();
  if (c.bias) n += w.b_q.size() + w.b_k.size() + w.b_v.size() + w.b_o.size();
  return n;
}

TEST(AttentionConfig, ParamCountIs288ForDModel8WhateverTheHeadCount) {
  for (int H : {1, 2, 4, 8}) {
    const AttentionConfig c = config(8, H);
    EXPECT_EQ(attention_param_count(c), 288) << H << " heads";
    EXPECT_EQ(allocated_params(c), 288) << H << " heads";
  }
}

TEST(AttentionConfig, ParamCountIsIndependentOfHeadCount) {
  for (int d : {12, 24, 64}) {
    for (int H = 1; H <= d; ++H) {
      if (d % H) continue;
      EXPECT_EQ(attention_param_count(config(d, H)), 4 * d * d + 4 * d) << "d_model " << d << " heads " << H;
    }
  }
  AttentionConfig nobias = config(8, 2);
  nobias.bias = false;
  EXPECT_EQ(attention_param_count(nobias), 4 * 8 * 8);
  EXPECT_EQ(allocated_params(nobias), 256);
}

// Decoupled width: Q and O scale with H*dh, K and V with G*dh:
// d*H*dh + 2*d*G*dh + H*dh*d (+ H*dh + 2*G*dh + d biases).
TEST(AttentionConfig, DecoupledHeadWidthChangesTheCountAsTheFormulaSays) {
  const int d = 8;
  for (int H : {1, 2, 4}) {
    for (int dh : {1, 3, 16}) {
      const AttentionConfig c = config(d, H, 0, dh);
      const int64_t q = int64_t(H) * dh;
      EXPECT_EQ(attention_param_count(c), d * q * 4 + q * 3 + d) << "heads " << H << " d_head " << dh;
      EXPECT_EQ(allocated_params(c), attention_param_count(c)) << "heads " << H << " d_head " << dh;
      EXPECT_EQ(c.head_width(), dh);
    }
  }
  EXPECT_TRUE(config(8, 2, 0, 3).decoupled_width());
  EXPECT_FALSE(config(8, 2, 0, 4).decoupled_width());
  // Wider heads cost more; narrower fewer; the default split is 288.
  EXPECT_LT(attention_param_count(config(8, 4, 0, 1)), 288);
  EXPECT_GT(attention_param_count(config(8, 4, 0, 4)), 288);
}

TEST(AttentionConfig, GroupedQueryShrinksKeyValueProjections) {
  // d 8, H 4, dh 2: Q 64 + K 8*G*2 + V 8*G*2 + O 64, biases 8 + 2*G*2 + 8.
  for (int G : {1, 2, 4}) {
    const AttentionConfig c = config(8, 4, G);
    EXPECT_EQ(attention_param_count(c), 64 + 32 * G + 64 + 16 + 4 * G) << "G " << G;
    EXPECT_EQ(allocated_params(c), attention_param_count(c)) << "G " << G;
    EXPECT_EQ(kv_cache_floats_per_token(c), 2 * G * 2);
    EXPECT_EQ(c.group_size(), 4 / G);
  }
}

TEST(AttentionConfig, ValidateNamesBothNumbers) {
  EXPECT_EQ(validate_message(config(8, 3)), "heads (3) must divide d_model (8)");
  EXPECT_EQ(validate_message(config(8, 4, 3)), "key/value heads (3) must divide heads (4)");
  EXPECT_NE(validate_message(config(0, 1)).find("d_model (0)"), std::string::npos);
  EXPECT_NE(validate_message(config(-8, 1)).find("d_model (-8)"), std::string::npos);
  EXPECT_NE(validate_message(config(8, 0)).find("heads (0)"), std::string::npos);
  EXPECT_NE(validate_message(config(8, -2)).find("heads (-2)"), std::string::npos);
  EXPECT_NE(validate_message(config(8, 2, -1)).find("(-1)"), std::string::npos);
  EXPECT_NE(validate_message(config(8, 2, 0, -4)).find("(-4)"), std::string::npos);
  EXPECT_NE(validate_message(config(kMaxDModel + 1, 1)).find("limit"), std::string::npos);
  EXPECT_NE(validate_message(config(kMaxHeads * 2, kMaxHeads * 2)).find("limit"), std::string::npos);
  // 4 GiB of weights: refused before anything is allocated.
  EXPECT_NE(validate_message(config(16384, 1)).find("parameters"), std::string::npos);
  AttentionConfig c = config(8, 2);
  c.window = -2;
  EXPECT_NE(validate_message(c).find("window (-2)"), std::string::npos);
  for (float t : {0.0f, -1.0f, 1e-30f, 1e30f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    c = config(8, 2);
    c.temperature = t;
    EXPECT_NE(validate_message(c).find("temperature"), std::string::npos) << t;
  }
  for (float v : {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    c = config(8, 2);
    c.softcap = v;
    EXPECT_NE(validate_message(c).find("soft-cap"), std::string::npos) << v;
    c = config(8, 2);
    c.scale = v;
    EXPECT_NE(validate_message(c).find("score scale"), std::string::npos) << v;
  }
  // A decoupled width may leave d_model undivided.
  EXPECT_EQ(validate_message(config(8, 3, 0, 2)), "");
  EXPECT_EQ(validate_message(config(8, 4, 2)), "");
  EXPECT_EQ(validate_message(config(1, 1)), "");
}

TEST(AttentionConfig, InitialisationFollowsTorch) {
  // xavier_uniform over the packed [3d, d] in_proj: |w| <= sqrt(6 / (d + 3d)); out_proj
  // kaiming_uniform(a = sqrt(5)): |w| <= 1 / sqrt(d); biases 0.
  const AttentionConfig c = config(16, 4);
  const AttentionWeights w = init_attention_weights(c, 3);
  const float a_in = std::sqrt(6.0f / 64.0f), a_out = 1.0f / 4.0f;
  for (const Map* m : {&w.w_q, &w.w_k, &w.w_v}) {
    EXPECT_LE(m->cwiseAbs().maxCoeff(), a_in);
    EXPECT_GT(m->cwiseAbs().maxCoeff(), 0.8f * a_in);  // actually spread over the range
    EXPECT_NEAR(m->mean(), 0.0f, 0.05f);
  }
  EXPECT_LE(w.w_o.cwiseAbs().maxCoeff(), a_out);
  EXPECT_GT(w.w_o.cwiseAbs().maxCoeff(), 0.8f * a_out);
  EXPECT_EQ(w.b_q.cwiseAbs().sum() + w.b_k.cwiseAbs().sum() + w.b_v.cwiseAbs().sum() + w.b_o.cwiseAbs().sum(), 0.0f);
  // Seeded: same seed, same weights; another seed, others.
  EXPECT_EQ(init_attention_weights(c, 3).w_q, w.w_q);
  EXPECT_NE(init_attention_weights(c, 4).w_q, w.w_q);
}

}  // namespace
}  // namespace hs
