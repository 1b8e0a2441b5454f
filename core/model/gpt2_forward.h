#pragma once
// The GPT-2 decoder (Hugging Face model_type "gpt2"):
//   x = wte[token] + wpe[position]
//   per layer:  h = LayerNorm_1(x)
//               [q k v] = h W_attn + b_attn        (Conv1D: W_attn [d, 3d], y = x W + b)
//               x += attend_heads(q, k, v) W_proj + b_proj   (causal, H heads of d/H)
//               h = LayerNorm_2(x)
//               x += act(h W_fc + b_fc) W_out + b_out         (act: GELU, tanh form for gelu_new)
//   out = LayerNorm_f(x);  logits = out wte^T (tied; or lm_head when the file has one)
#include <vector>

#include "core/model/transformer_model.h"

namespace hs {

enum class Gelu { tanh_approx, exact };

struct Gpt2Config {
  int d_model = 0;
  int n_heads = 0;
  int n_layers = 0;
  int inner = 0;        // feed-forward width (4 d by default)
  int vocab = 0;
  int max_positions = 0;
  float norm_eps = 1e-5f;
  Gelu gelu = Gelu::tanh_approx;
};

struct Gpt2Layer {
  Vec ln1_w, ln1_b;   // [d]
  Map attn_w;         // [d, 3d]  (in, out)
  Vec attn_b;         // [3d]
  Map proj_w;         // [d, d]
  Vec proj_b;         // [d]
  Vec ln2_w, ln2_b;   // [d]
  Map fc_w;           // [d, inner]
  Vec fc_b;           // [inner]
  Map out_w;          // [inner, d]
  Vec out_b;          // [d]
};

struct Gpt2Weights {
  Map wte;            // [vocab, d]
  Map wpe;            // [max_positions, d]
  std::vector<Gpt2Layer> layers;
  Vec lnf_w, lnf_b;   // [d]
  Map lm_head;        // [vocab, d]; empty = tied to wte
};

class Gpt2Model : public TransformerModel {
 public:
  Gpt2Model(Gpt2Config config, Gpt2Weights weights, ModelInfo info);
  const ModelInfo& info() const override { return info_; }
  int max_positions() const override { return config_.max_positions; }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override;
  Map forward_cached(const std::vector<int>& new_ids, KvCache& cache) const override;
  bool records_cached_rows() const override { return true; }
  Map logits(const Map& hidden, int threads) const override;
  bool runs_layers() const override { return true; }
  Map embed_tokens(const std::vector<int>& ids) const override;
  void run_layers(Map& x, int begin, int end, Observer* observer, int threads) const override;
  Map final_norm(const Map& x) const override;
  bool runs_stacked() const override { return true; }
  void run_layers_stacked(Map& x, int seq_len, int begin, int end, Observer* observer, int threads) const override;
  int64_t stacked_floats_per_row() const override;

 private:
  // act(LayerNorm_2(x) W_fc + b_fc) W_out + b_out: [T, d] -> [T, d].
  Map mlp(const Map& x, const Gpt2Layer& L, int threads) const;
  // Layers [begin, end) on x [n, d]; stacked > 0: n / stacked sequences of `stacked` rows, each attended alone.
  void run_gpt2_layers(Map& x, int begin, int end, Observer* observer, int threads, int stacked) const;

  Gpt2Config config_;
  Gpt2Weights w_;
  ModelInfo info_;
};

}  // namespace hs
