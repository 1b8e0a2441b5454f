#pragma once
// The Llama-family decoder (llama2.c checkpoints and Hugging Face model_type "llama"):
//   x = emb[token]
//   per layer:  h = RMSNorm(x) * attn_norm
//               q = h Wq^T, k = h Wk^T, v = h Wv^T   (+ biases if present); RoPE on q and k
//               x += attend_heads(q, k, v) Wo^T       (causal, GQA: query head h reads kv head h / (H/G))
//               h = RMSNorm(x) * ffn_norm
//               x += (silu(h W1^T) * (h W3^T)) W2^T   (SwiGLU: W1 = gate, W3 = up, W2 = down)
//   out = RMSNorm(x) * final_norm;  logits = out Wcls^T  (Wcls = emb when tied)
#include <string>
#include <vector>

#include "core/model/transformer_model.h"
#include "core/model/transformer_ops.h"

namespace hs {

struct LlamaConfig {
  int d_model = 0;
  int hidden = 0;       // feed-forward width
  int n_layers = 0;
  int n_heads = 0;
  int n_kv_heads = 0;
  int d_head = 0;       // usually d_model / n_heads
  int vocab = 0;
  int max_positions = 0;
  float norm_eps = 1e-5f;
  float rope_theta = 10000.0f;
  RopePairs rope = RopePairs::half;
};

struct LlamaLayer {
  Vec attn_norm;     // [d]
  Map wq;            // [H*dh, d]
  Map wk;            // [G*dh, d]
  Map wv;            // [G*dh, d]
  Map wo;            // [d, H*dh]
  Vec bq, bk, bv, bo;  // empty unless the checkpoint has attention biases
  Vec ffn_norm;      // [d]
  Map w1;            // gate [hidden, d]
  Map w2;            // down [d, hidden]
  Map w3;            // up   [hidden, d]
};

struct LlamaWeights {
  Map embedding;     // [vocab, d]
  std::vector<LlamaLayer> layers;
  Vec final_norm;    // [d]
  Map classifier;    // [vocab, d]; empty = tied to the embedding
};

class LlamaModel : public TransformerModel {
 public:
  // info: kind and name are the caller's; shapes and parameter counts are filled in here.
  LlamaModel(LlamaConfig config, LlamaWeights weights, ModelInfo info);
  const ModelInfo& info() const override { return info_; }
  int max_positions() const override { return config_.max_positions; }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override;
  Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const override;
  Map logits(const Map& hidden, int threads) const override;
  const LlamaConfig& config() const { return config_; }

 private:
  LlamaConfig config_;
  LlamaWeights w_;
  ModelInfo info_;
};

}  // namespace hs
