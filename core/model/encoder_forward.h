#pragma once
// The Hugging Face encoder families (model_type bert, roberta, xlm-roberta, distilbert, electra,
// modernbert). Attention is bidirectional: every query sees every key (one sequence, no padding),
// except ModernBERT's local layers, where query i sees keys with |i - j| <= local_attention / 2.
//
// BERT layout (post-LayerNorm; bert, roberta, xlm-roberta, distilbert, electra):
//   e = word[id_t] + position[t + position_offset] + token_type[type_t]
//       (RoBERTa / XLM-R: position_offset = padding_idx + 1; DistilBERT: no token types)
//   x = LayerNorm_emb(e)                       (ELECTRA: then x = x P^T + p when embedding_size != hidden_size)
//   per layer:  q = x Wq^T + bq, k = x Wk^T + bk, v = x Wv^T + bv          [T, d] each
//               x = LayerNorm_attn(x + attend_heads(q, k, v) Wo^T + bo)     (scores q k^T / sqrt(d_head))
//               x = LayerNorm_ffn(x + act(x W1^T + b1) W2^T + b2)           (act: GELU (erf) as configured)
//
// ModernBERT layout (pre-LayerNorm, rotary positions, GeGLU, biases only where configured):
//   x = LayerNorm_emb(word[id_t])
//   per layer l: h = l == 0 ? x : LayerNorm_attn(x)
//               [q | k | v] = h Wqkv^T; RoPE on q and k (rope_theta on global layers, rope_local_theta on local ones)
//               x += attend_heads(q, k, v) Wo^T                (local layers: window |i - j| <= W)
//               [a | g] = LayerNorm_mlp(x) Wi^T;  x += (act(a) * g) Wo_mlp^T
//   out = LayerNorm_final(x)
//
// An encoder predicts no next token: logits() and forward_cached() are never called for it (the
// session asks predicts_next_token() first).
#include <string>
#include <vector>

#include "core/model/transformer_model.h"

namespace hs {

enum class EncoderActivation {
  gelu,       // exact: 0.5 x (1 + erf(x / sqrt 2))  (hidden_act "gelu")
  gelu_tanh,  // tanh approximation ("gelu_new", "gelu_pytorch_tanh", "gelu_fast")
  relu,
  silu,
};

enum class EncoderLayout {
  bert,        // post-LayerNorm, learned absolute positions (bert, roberta, xlm-roberta, distilbert, electra)
  modernbert,  // pre-LayerNorm, rotary positions, GeGLU, local/global layers
};

struct EncoderConfig {
  EncoderLayout layout = EncoderLayout::bert;
  int d_model = 0;
  int n_heads = 0;
  int n_layers = 0;
  int inner = 0;          // feed-forward width (ModernBERT: of each GeGLU half)
  int vocab = 0;
  int embed_dim = 0;      // embedding width: ELECTRA's embedding_size, else d_model
  int positions = 0;      // learned: rows of the position table; rotary: max_position_embeddings
  int position_offset = 0;  // learned: token t reads position row t + offset (RoBERTa: padding_idx + 1)
  int type_vocab = 0;     // rows of the token type table; 0 = the family has none
  float norm_eps = 1e-12f;
  EncoderActivation activation = EncoderActivation::gelu;
  // ModernBERT
  std::vector<int> layer_windows;  // [n_layers] engine window (|i - j| <= W) per layer, -1 global
  double rope_theta = 0.0;         // global layers
  double rope_local_theta = 0.0;   // local layers

  int d_head() const { return d_model / n_heads; }
  int layer_window(int layer) const { return layer_windows.empty() ? -1 : layer_windows[size_t(layer)]; }
};

struct EncoderLayer {
  Map wq, wk, wv, wo;            // [d, d] each (nn.Linear: [out, in]); ModernBERT's Wqkv split in three
  Vec bq, bk, bv, bo;            // [d] or empty (no bias)
  Vec attn_norm_w, attn_norm_b;  // [d]; bert: after the attention residual; modernbert: before attention
                                 // (empty on layer 0, which has none); a norm's bias may be empty
  Map w_in;                      // [inner, d] (GeGLU: [2 inner, d], the activated half first)
  Vec b_in;                      // [inner] / [2 inner] or empty
  Map w_out;                     // [d, inner]
  Vec b_out;                     // [d] or empty
  Vec ffn_norm_w, ffn_norm_b;    // [d]; bert: after the feed-forward residual; modernbert: before it
};

struct EncoderWeights {
  Map word;                      // [vocab, e]
  Map position;                  // [positions, e]; empty for rotary models
  Map token_type;                // [type_vocab, e]; empty when the family has none
  Vec emb_norm_w, emb_norm_b;    // [e]
  Map emb_project;               // [d, e] (ELECTRA with embedding_size != hidden_size), else empty
  Vec emb_project_b;             // [d]
  std::vector<EncoderLayer> layers;
  Vec final_norm_w, final_norm_b;  // [d] (ModernBERT), else empty
};

class EncoderModel : public TransformerModel {
 public:
  // info: kind, name and family are the caller's; shapes, attention layout and parameter counts
  // are filled in here.
  EncoderModel(EncoderConfig config, EncoderWeights weights, ModelInfo info);
  const ModelInfo& info() const override { return info_; }
  // Tokens the model can place: position rows past the offset (RoBERTa: 514 - 2 = 512).
  int max_positions() const override;
  bool predicts_next_token() const override { return false; }
  int type_vocab_size() const override { return config_.type_vocab; }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override;
  Map forward_segments(const std::vector<int>& ids, const std::vector<int>& type_ids, Observer* observer,
                       int threads) const override;
  // Not available: an encoder has no next-token head (asserted; the session never asks).
  Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const override;
  Map logits(const Map& hidden, int threads) const override;
  const EncoderConfig& config() const { return config_; }

 private:
  // The embeddings of ids with their token types, normalised (and projected): [T, d].
  Map embed(const std::vector<int>& ids, const std::vector<int>& type_ids, int threads) const;
  void bert_layer(Map& x, int layer, Observer* observer, int threads) const;
  void modern_layer(Map& x, int layer, Observer* observer, int threads) const;

  EncoderConfig config_;
  EncoderWeights w_;
  ModelInfo info_;
};

}  // namespace hs
