#pragma once
// The Llama-family decoder: llama2.c checkpoints and the Hugging Face RoPE decoders (model_type
// llama, qwen2, qwen3, mistral, phi3, gemma, gemma2, gemma3_text), which differ only in options:
//   x = emb[token] * embed_scale                       (Gemma: sqrt(d_model) in the model's dtype)
//   per layer l:
//     h = RMSNorm(x) * attn_norm
//     q = h Wq^T, k = h Wk^T, v = h Wv^T (+ biases)      q [T, H*dh], k and v [T, G*dh]
//     q, k = RMSNorm per head * q_norm, k_norm           (Qwen 3, Gemma 3)
//     RoPE on q and k                                    (layer l's frequencies: rope_local for local layers)
//     a = attend_heads(q, k, v) Wo^T (+ bo)              (causal, GQA h -> h / (H/G); layer l's window,
//                                                         score scale and soft-cap)
//     x += post_attn_norm ? RMSNorm(a) * post_attn_norm : a          (Gemma 2/3 sandwich norms)
//     h = RMSNorm(x) * ffn_norm
//     f = (act(h W1^T) * (h W3^T)) W2^T                  (act: SiLU = SwiGLU, GELU tanh = GeGLU)
//     x += post_ffn_norm ? RMSNorm(f) * post_ffn_norm : f
//   out = RMSNorm(x) * final_norm;  logits = out Wcls^T  (Wcls = emb when tied),
//   then cap * tanh(logits / cap) with a final soft-cap (Gemma 2).
// Gemma's (1 + w) norms are stored as 1 + w by the loader, so every norm here is x / rms * w.
// Weight matrices are LinearWeights: float32 (Hugging Face, llama2.c) or compact GGUF encodings.
#include <string>
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/linear_weight.h"
#include "core/model/rope.h"
#include "core/model/transformer_model.h"
#include "core/model/transformer_ops.h"

namespace hs {

// The feed-forward gate's activation.
enum class GateActivation {
  silu,       // SwiGLU (Llama, Qwen, Mistral, Phi-3)
  gelu_tanh,  // GeGLU with GELU's tanh approximation (Gemma: gelu_pytorch_tanh)
  gelu,       // GeGLU with exact GELU (erf)
};

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
  // How RoPE pairs each head's dimensions: adjacent (llama2.c, and GGUF files of llama.cpp's
  // "llama" architecture, whose q/k rows the converter permuted to that order) or half (Hugging
  // Face). The frequencies are rope_global / rope_local's either way; adjacent with plain RoPE and
  // no frequency factors is llama2.c's computation exactly.
  RopePairs rope = RopePairs::half;

  // Options of the Hugging Face families; the defaults are Llama 2's.
  RopeSpec rope_global;             // every layer's RoPE (theta 0 = rope_theta, rotary_dim 0 = d_head)
  RopeSpec rope_local;              // local layers' RoPE when use_local_rope (Gemma 3: rope_local_base_freq, plain)
  bool use_local_rope = false;
  std::vector<int> layer_windows;   // [n_layers] engine window (AttentionConfig::window) per layer, -1 global; empty: all global
  float attn_scale = 0.0f;          // factor on q . k; 0 = 1 / sqrt(d_head)
  float attn_softcap = 0.0f;        // attention logit soft-cap; 0 = none
  float final_softcap = 0.0f;       // logit soft-cap; 0 = none
  float embed_scale = 1.0f;         // embeddings are multiplied by it
  GateActivation activation = GateActivation::silu;

  int layer_window(int layer) const { return layer_windows.empty() ? -1 : layer_windows[size_t(layer)]; }
  bool is_local(int layer) const { return layer_window(layer) >= 0; }
};

struct LlamaLayer {
  Vec attn_norm;     // [d]
  LinearWeight wq;   // [H*dh, d]
  LinearWeight wk;   // [G*dh, d]
  LinearWeight wv;   // [G*dh, d]
  LinearWeight wo;   // [d, H*dh]
  Vec bq, bk, bv, bo;  // empty unless the checkpoint has attention biases
  Vec q_norm, k_norm;  // [dh] per-head RMSNorm of q and k before RoPE; empty unless Qwen 3 / Gemma 3
  Vec post_attn_norm;  // [d] RMSNorm of the attention output; empty unless Gemma 2 / 3
  Vec ffn_norm;      // [d]
  LinearWeight w1;   // gate [hidden, d]
  LinearWeight w2;   // down [d, hidden]
  LinearWeight w3;   // up   [hidden, d]
  Vec post_ffn_norm;   // [d] RMSNorm of the feed-forward output; empty unless Gemma 2 / 3
};

struct LlamaWeights {
  LinearWeight embedding;   // [vocab, d]
  std::vector<LlamaLayer> layers;
  Vec final_norm;    // [d]
  LinearWeight classifier;  // [vocab, d]; empty = tied to the embedding
};

class LlamaModel : public TransformerModel {
 public:
  // info: kind, name and family are the caller's; shapes, attention layout and parameter counts
  // are filled in here.
  LlamaModel(LlamaConfig config, LlamaWeights weights, ModelInfo info);
  const ModelInfo& info() const override { return info_; }
  int max_positions() const override { return config_.max_positions; }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override;
  Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const override;
  // Not with LongRoPE, whose frequencies change with the sequence length.
  bool records_cached_rows() const override { return config_.rope_global.type != RopeType::longrope; }
  Map logits(const Map& hidden, int threads) const override;
  std::vector<int> next_token_ids(const Map& hidden, int threads) const override;
  bool runs_layers() const override { return true; }
  Map embed_tokens(const std::vector<int>& ids) const override { return embed(ids); }
  void run_layers(Map& x, int begin, int end, Observer* observer, int threads) const override;
  Map final_norm(const Map& x) const override;
  bool runs_stacked() const override { return true; }
  void run_layers_stacked(Map& x, int seq_len, int begin, int end, Observer* observer, int threads) const override;
  int64_t stacked_floats_per_row() const override;
  const LlamaConfig& config() const { return config_; }
  const LlamaWeights& weights() const { return w_; }  // random-weight copies read their shapes here

  // The attention config layer l runs with (window, scale and soft-cap of the layer).
  AttentionConfig layer_attention(int layer) const;

 private:
  // The embeddings of ids, scaled: [n, d].
  Map embed(const std::vector<int>& ids) const;
  // The output projection: the classifier, or the embedding when tied. [vocab, d]
  const LinearWeight& output() const { return w_.classifier.empty() ? w_.embedding : w_.classifier; }
  // RoPE on q [n, H*dh] and k [n, G*dh] of layer l for positions first .. first + n - 1 of a
  // sequence of seq_len positions (dynamic and LongRoPE frequencies depend on it).
  void rotate(Map& q, Map& k, int layer, int first, int seq_len) const;
  // One layer on x [n, d] in place; `attend` turns (q, k, v) into the heads' contexts [n, H*dh].
  // stacked > 0: x holds n / stacked sequences of `stacked` rows each (run_layers_stacked), each
  // rotated and attended alone (first = 0, seq_len = stacked).
  template <typename Attend>
  void layer_step(Map& x, int layer, int first, int seq_len, int threads, Observer* observer, Attend&& attend,
                  int stacked = 0) const;
  // The feed-forward block of layer L on rows x [n, d] (after the attention's residual): [n, d] to add.
  Map feed_forward(const Map& x, const LlamaLayer& L, int threads) const;
  // Rows the feed-forward block takes at a time (its [rows, hidden] activations are held per block).
  static constexpr Eigen::Index kFeedForwardRows = 1024;

  LlamaConfig config_;
  LlamaWeights w_;
  ModelInfo info_;
};

}  // namespace hs
