// The Llama-family decoder's options (the Hugging Face families' differences) on tiny random
// models: cached decoding gives the hidden states of the whole-sequence forward for every option
// set (windows per layer, soft-caps, score scale, sandwich and per-head norms, GeGLU, embedding
// scale, partial rotary, scaled RoPE, LongRoPE switching past its original context); ModelInfo
// describes the attention layout; the per-layer configs it gives rebuild the engine's exact rows.
// The maps themselves are checked against PyTorch references in tests/core/pretrained.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/model/attention_layer.h"
#include "core/model/compact_maps.h"
#include "core/model/llama_forward.h"
#include "core/model/model_run.h"

namespace hs {
namespace {

struct Options {
  std::string name;
  LlamaConfig config;
  bool qk_norm = false, sandwich = false, biases = false;
};

LlamaConfig base_config() {
  LlamaConfig c;
  c.d_model = 16;
  c.hidden = 24;
  c.n_layers = 3;
  c.n_heads = 4;
  c.n_kv_heads = 2;
  c.d_head = 6;
  c.vocab = 20;
  c.max_positions = 64;
  c.norm_eps = 1e-6f;
  c.rope_theta = 10000.0f;
  c.rope = RopePairs::half;
  return c;
}

std::vector<Options> option_sets() {
  std::vector<Options> out;
  out.push_back({"plain", base_config()});
  {
    Options o{"gemma2_like", base_config()};
    o.config.layer_windows = {2, -1, 2};
    o.config.attn_scale = 0.3f;
    o.config.attn_softcap = 1.5f;
    o.config.final_softcap = 3.0f;
    o.config.embed_scale = 4.0f;
    o.config.activation = GateActivation::gelu_tanh;
    o.sandwich = true;
    out.push_back(o);
  }
  {
    Options o{"gemma3_like", base_config()};
    o.config.layer_windows = {3, 3, -1};
    o.config.use_local_rope = true;
    o.config.rope_local.theta = 100.0;
    o.config.rope_global.type = RopeType::linear;
    o.config.rope_global.factor = 4.0;
    o.config.activation = GateActivation::gelu;
    o.qk_norm = o.sandwich = true;
    out.push_back(o);
  }
  {
    Options o{"qwen_yarn", base_config()};
    o.config.rope_global.type = RopeType::yarn;
    o.config.rope_global.factor = 4.0;
    o.config.rope_global.original_max_positions = 16;
    o.qk_norm = o.biases = true;
    out.push_back(o);
  }
  {
    Options o{"phi3_longrope_partial", base_config()};
    o.config.rope_global.type = RopeType::longrope;
    o.config.rope_global.rotary_dim = 4;
    o.config.rope_global.factor = 4.0;
    o.config.rope_global.original_max_positions = 8;
    o.config.rope_global.short_factor = {1.0, 1.5};
    o.config.rope_global.long_factor = {2.0, 5.0};
    o.config.layer_windows = {5, 5, 5};
    out.push_back(o);
  }
  {
    Options o{"llama3_dynamic_within_range", base_config()};
    o.config.rope_global.type = RopeType::dynamic;
    o.config.rope_global.factor = 2.0;
    o.config.rope_global.max_positions = 64;
    out.push_back(o);
  }
  return out;
}

std::unique_ptr<LlamaModel> random_model(const Options& o, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  const LlamaConfig& c = o.config;
  auto m = [&](int64_t r, int64_t k) {
    Map x(r, k);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
    return x;
  };
  auto v = [&](int64_t n, float centre) {
    Vec x(n);
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = centre + normal(rng);
    return x;
  };
  const int64_t d = c.d_model, q = int64_t(c.n_heads) * c.d_head, kv = int64_t(c.n_kv_heads) * c.d_head;
  LlamaWeights w;
  w.embedding = m(c.vocab, d) * 3.0f;
  for (int l = 0; l < c.n_layers; ++l) {
    LlamaLayer L;
    L.attn_norm = v(d, 1.0f);
    L.wq = m(q, d) * 2.0f;
    L.wk = m(kv, d) * 2.0f;
    L.wv = m(kv, d);
    L.wo = m(d, q);
    if (o.biases) {
      L.bq = v(q, 0.0f);
      L.bk = v(kv, 0.0f);
      L.bv = v(kv, 0.0f);
    }
    if (o.qk_norm) {
      L.q_norm = v(c.d_head, 1.0f);
      L.k_norm = v(c.d_head, 1.0f);
    }
    if (o.sandwich) {
      L.post_attn_norm = v(d, 1.0f);
      L.post_ffn_norm = v(d, 1.0f);
    }
    L.ffn_norm = v(d, 1.0f);
    L.w1 = m(c.hidden, d);
    L.w2 = m(d, c.hidden);
    L.w3 = m(c.hidden, d);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = v(d, 1.0f);
  ModelInfo info;
  info.kind = info.family = o.name;
  return std::make_unique<LlamaModel>(o.config, std::move(w), info);
}

std::vector<int> ids_of(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<int> ids;
  for (int i = 0; i < n; ++i) ids.push_back(int(rng() % 20));
  return ids;
}

TEST(DecoderOptions, CachedDecodingEqualsTheWholeSequence) {
  for (const Options& o : option_sets()) {
    const auto model = random_model(o, 7);
    const std::vector<int> ids = ids_of(14, 3);
    KvCache cache;
    std::vector<int> seen(ids.begin(), ids.begin() + 5);
    Map step = model->forward_cached(seen, cache);  // a 5-token prompt, then one token at a time
    for (size_t t = 5; t <= ids.size(); ++t) {
      const Map whole = model->forward(seen, nullptr, 1);
      const float err = (whole.bottomRows(step.rows()) - step).cwiseAbs().maxCoeff();
      ASSERT_LE(err, 2e-4f) << o.name << ": cached hidden states differ at length " << seen.size();
      ASSERT_EQ(cache.length, int(seen.size())) << o.name;
      if (t == ids.size()) break;
      seen.push_back(ids[t]);
      step = model->forward_cached({ids[t]}, cache);
    }
    // Logits: the final soft-cap bounds them.
    const Map logits = model->logits(step, 1);
    if (o.config.final_softcap > 0) {
      EXPECT_LE(logits.cwiseAbs().maxCoeff(), o.config.final_softcap) << o.name;
    }
  }
}

// LongRoPE switches every position to its long factors once the sequence outgrows the original
// context: the maps of 9 positions differ from those of the first 8 positions on their own.
TEST(DecoderOptions, LongRopeSwitchesFactorsPastTheOriginalContext) {
  const Options o = option_sets()[4];
  const auto model = random_model(o, 9);
  const std::vector<int> ids = ids_of(9, 5);
  MapRecorder short_run(3, 4), long_run(3, 4);
  model->forward(std::vector<int>(ids.begin(), ids.begin() + 8), &short_run, 1);
  model->forward(ids, &long_run, 1);
  const Map& a = short_run.attention[0][0];
  const Map& b = long_run.attention[0][0];
  EXPECT_GT((a - b.topLeftCorner(8, 8)).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(DecoderOptions, ModelInfoDescribesTheAttentionLayout) {
  const std::vector<Options> sets = option_sets();
  const auto gemma2 = random_model(sets[1], 1);
  const ModelInfo& g = gemma2->info();
  EXPECT_EQ(g.layer_windows, std::vector<int>({2, -1, 2}));
  EXPECT_EQ(g.window, -1) << "layers differ";
  EXPECT_TRUE(g.is_local_layer(0));
  EXPECT_FALSE(g.is_local_layer(1));
  EXPECT_EQ(g.softcap, 1.5f);
  EXPECT_EQ(g.final_softcap, 3.0f);
  EXPECT_EQ(g.score_scale, 0.3f);
  EXPECT_EQ(g.rope_type, "default");
  EXPECT_EQ(g.weight_bytes, 4 * g.total_params);
  // Embedding 20 x 16; per layer: norms 16 x 4 (sandwich), q 24 x 16, k and v 12 x 16, o 16 x 24,
  // MLP 3 x 24 x 16; final norm 16.
  EXPECT_EQ(g.total_params, 20 * 16 + 3 * (4 * 16 + 24 * 16 + 2 * 12 * 16 + 16 * 24 + 3 * 24 * 16) + 16);

  const ModelInfo gemma3 = random_model(sets[2], 1)->info();
  EXPECT_EQ(gemma3.rope_type, "linear");
  EXPECT_EQ(gemma3.rope_theta, 10000.0f);
  EXPECT_EQ(gemma3.rope_local_theta, 100.0f);

  const ModelInfo phi3 = random_model(sets[4], 1)->info();
  EXPECT_EQ(phi3.window, 5) << "one window for every layer";
  EXPECT_EQ(phi3.rotary_dim, 4);
  EXPECT_EQ(phi3.rope_type, "longrope");

  const ModelInfo plain = random_model(sets[0], 1)->info();
  EXPECT_EQ(plain.window, -1);
  EXPECT_EQ(plain.layer_windows, std::vector<int>({-1, -1, -1}));
  EXPECT_EQ(plain.rotary_dim, 6);
}

// Long-input mode rebuilds exact rows from q, k and each layer's config as ModelInfo describes it.
TEST(DecoderOptions, ExactRowsFromModelInfoMatchTheMaps) {
  const Options o = option_sets()[1];
  const auto model = random_model(o, 11);
  const std::vector<int> ids = ids_of(12, 7);
  MapRecorder full(3, 4);
  CompactRecorder compact(3, 4, 12, 4);
  ObserverPair both(&full, &compact);
  model->forward(ids, &both, 1);
  std::vector<AttentionConfig> layers;
  for (int l = 0; l < 3; ++l) layers.push_back(layer_attention_config(model->info(), l));
  const ExactAttention exact(layers, compact.queries, compact.keys);
  for (int l = 0; l < 3; ++l)
    for (int h = 0; h < 4; ++h)
      for (int i = 0; i < 12; ++i) {
        const Vec row = exact.row(l, h, i);
        for (int j = 0; j < 12; ++j)
          ASSERT_NEAR(row[j], full.attention[size_t(l)][size_t(h)](i, j), 1e-6f) << "layer " << l << " head " << h << " cell (" << i << ", " << j << ")";
      }
  // Layer 0's window of 2 hides key 0 from query 5; layer 1 is global.
  EXPECT_EQ(full.attention[0][0](5, 0), 0.0f);
  EXPECT_GT(full.attention[1][0](5, 0), 0.0f);
}

}  // namespace
}  // namespace hs
