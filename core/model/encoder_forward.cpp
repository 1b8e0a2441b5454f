#include "core/model/encoder_forward.h"

#include <cassert>

#include "core/model/attention_layer.h"
#include "core/model/rope.h"
#include "core/model/transformer_ops.h"

namespace hs {
namespace {

// y = x W^T + b (b may be empty): x [T, in], W [out, in] -> [T, out].
Map linear(const Map& x, const Map& w, const Vec& b, int threads) {
  Map y = matmul_wt(x, w, threads);
  if (b.size() > 0) y.rowwise() += b.transpose();
  return y;
}

// LayerNorm with an optional bias (ModernBERT's norm_bias false stores none).
Map norm(const Map& x, const Vec& w, const Vec& b, float eps) {
  return layer_norm(x, w, b.size() > 0 ? b : Vec(Vec::Zero(w.size())), eps);
}

float activate(EncoderActivation a, float v) {
  switch (a) {
    case EncoderActivation::gelu: return gelu_exact(v);
    case EncoderActivation::gelu_tanh: return gelu_tanh(v);
    case EncoderActivation::relu: return v > 0.0f ? v : 0.0f;
    case EncoderActivation::silu: return silu(v);
  }
  return v;
}

int64_t encoder_count(const Map& m) { return m.size(); }
int64_t encoder_count(const Vec& v) { return v.size(); }

}  // namespace

EncoderModel::EncoderModel(EncoderConfig config, EncoderWeights weights, ModelInfo info)
    : config_(std::move(config)), w_(std::move(weights)), info_(std::move(info)) {
  const EncoderConfig& c = config_;
  assert(c.n_heads > 0 && c.d_model % c.n_heads == 0 && "heads divide d_model (checked by the loader)");
  assert((c.layer_windows.empty() || int(c.layer_windows.size()) == c.n_layers) && "one window per layer");
  info_.d_model = c.d_model;
  info_.n_heads = c.n_heads;
  info_.n_kv_heads = c.n_heads;
  info_.d_head = c.d_head();
  info_.n_layers = c.n_layers;
  info_.causal = false;
  info_.vocab_size = c.vocab;
  info_.layer_windows.clear();
  info_.window = c.layer_window(0);
  for (int l = 0; l < c.n_layers; ++l) info_.layer_windows.push_back(c.layer_window(l));
  for (int l = 1; l < c.n_layers; ++l)
    if (c.layer_window(l) != info_.window) info_.window = -1;
  if (c.layout == EncoderLayout::modernbert) {
    info_.rope_type = "default";
    info_.rope_theta = float(c.rope_theta);
    bool any_local = false;
    for (int l = 0; l < c.n_layers; ++l) any_local = any_local || c.layer_window(l) >= 0;
    info_.rope_local_theta = any_local ? float(c.rope_local_theta) : 0.0f;
    info_.rotary_dim = c.d_head();
  }

  const EncoderLayer& l0 = w_.layers.at(0);
  info_.param_count = encoder_count(l0.wq) + encoder_count(l0.wk) + encoder_count(l0.wv) + encoder_count(l0.wo) + encoder_count(l0.bq) + encoder_count(l0.bk) +
                      encoder_count(l0.bv) + encoder_count(l0.bo);
  int64_t total = encoder_count(w_.word) + encoder_count(w_.position) + encoder_count(w_.token_type) + encoder_count(w_.emb_norm_w) +
                  encoder_count(w_.emb_norm_b) + encoder_count(w_.emb_project) + encoder_count(w_.emb_project_b) + encoder_count(w_.final_norm_w) +
                  encoder_count(w_.final_norm_b);
  for (const EncoderLayer& l : w_.layers) {
    total += encoder_count(l.wq) + encoder_count(l.wk) + encoder_count(l.wv) + encoder_count(l.wo) + encoder_count(l.bq) + encoder_count(l.bk) + encoder_count(l.bv) +
             encoder_count(l.bo) + encoder_count(l.attn_norm_w) + encoder_count(l.attn_norm_b) + encoder_count(l.w_in) + encoder_count(l.b_in) +
             encoder_count(l.w_out) + encoder_count(l.b_out) + encoder_count(l.ffn_norm_w) + encoder_count(l.ffn_norm_b);
  }
  info_.total_params = total;
  info_.weight_bytes = total * int64_t(sizeof(float));
}

int EncoderModel::max_positions() const {
  return config_.layout == EncoderLayout::bert ? config_.positions - config_.position_offset : config_.positions;
}

Map EncoderModel::embed(const std::vector<int>& ids, const std::vector<int>& type_ids, int threads) const {
  const EncoderConfig& c = config_;
  const int T = static_cast<int>(ids.size());
  assert((type_ids.empty() || type_ids.size() == ids.size()) && "one type id per token");
  Map e(T, c.embed_dim);  // [T, e]
  for (int t = 0; t < T; ++t) {
    assert(ids[size_t(t)] >= 0 && ids[size_t(t)] < c.vocab && "token id checked by the session");
    e.row(t) = w_.word.row(ids[size_t(t)]);
    if (w_.position.size() > 0) {
      assert(t + c.position_offset < c.positions && "sequence length checked by the session");
      e.row(t) += w_.position.row(t + c.position_offset);
    }
    if (w_.token_type.size() > 0) {
      const int type = type_ids.empty() ? 0 : type_ids[size_t(t)];
      assert(type >= 0 && type < c.type_vocab && "token type checked by the session");
      e.row(t) += w_.token_type.row(type);
    }
  }
  Map x = norm(e, w_.emb_norm_w, w_.emb_norm_b, c.norm_eps);  // [T, e]
  if (w_.emb_project.size() > 0) x = linear(x, w_.emb_project, w_.emb_project_b, threads);  // [T, d]
  return x;
}

void EncoderModel::bert_layer(Map& x, int layer, Observer* observer, int threads) const {
  const EncoderConfig& c = config_;
  const EncoderLayer& L = w_.layers[size_t(layer)];
  const Map q = linear(x, L.wq, L.bq, threads);  // [T, d]
  const Map k = linear(x, L.wk, L.bk, threads);  // [T, d]
  const Map v = linear(x, L.wv, L.bv, threads);  // [T, d]
  const Map ctx = attend_heads(q, k, v, layer_attention_config(info_, layer), layer, observer, threads);  // [T, d]
  const Map out = linear(ctx, L.wo, L.bo, threads);  // [T, d]
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  x = norm(x + out, L.attn_norm_w, L.attn_norm_b, c.norm_eps);
  Map h = linear(x, L.w_in, L.b_in, threads);  // [T, inner]
  const EncoderActivation act = c.activation;
  h = h.unaryExpr([act](float a) { return activate(act, a); });
  x = norm(x + linear(h, L.w_out, L.b_out, threads), L.ffn_norm_w, L.ffn_norm_b, c.norm_eps);
}

void EncoderModel::modern_layer(Map& x, int layer, Observer* observer, int threads) const {
  const EncoderConfig& c = config_;
  const EncoderLayer& L = w_.layers[size_t(layer)];
  const int T = static_cast<int>(x.rows()), dh = c.d_head();
  const Map h = L.attn_norm_w.size() > 0 ? norm(x, L.attn_norm_w, L.attn_norm_b, c.norm_eps) : x;  // [T, d]
  Map q = linear(h, L.wq, L.bq, threads);        // [T, d]
  Map k = linear(h, L.wk, L.bk, threads);        // [T, d]
  const Map v = linear(h, L.wv, L.bv, threads);  // [T, d]
  // RoPE (rotate_half pairs (i, i + dh/2)), with the base of the layer's type.
  RopeSpec spec;
  spec.theta = c.layer_window(layer) >= 0 ? c.rope_local_theta : c.rope_theta;
  spec.rotary_dim = dh;
  const RopeFrequencies f = rope_frequencies(spec, T);
  apply_rope(q, c.n_heads, dh, f);
  apply_rope(k, c.n_heads, dh, f);
  const Map ctx = attend_heads(q, k, v, layer_attention_config(info_, layer), layer, observer, threads);  // [T, d]
  const Map out = linear(ctx, L.wo, L.bo, threads);  // [T, d]
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  x += out;
  // GeGLU: act(first half of Wi x) times the second half.
  const Map g = linear(norm(x, L.ffn_norm_w, L.ffn_norm_b, c.norm_eps), L.w_in, L.b_in, threads);  // [T, 2 inner]
  const EncoderActivation act = c.activation;
  const Map a = g.leftCols(c.inner).unaryExpr([act](float v2) { return activate(act, v2); }).cwiseProduct(g.rightCols(c.inner));
  x += linear(a, L.w_out, L.b_out, threads);
}

Map EncoderModel::forward(const std::vector<int>& ids, Observer* observer, int threads) const {
  return forward_segments(ids, {}, observer, threads);
}

Map EncoderModel::forward_segments(const std::vector<int>& ids, const std::vector<int>& type_ids, Observer* observer,
                                   int threads) const {
  Map x = embed(ids, type_ids, threads);  // [T, d]
  for (int l = 0; l < config_.n_layers; ++l) {
    if (config_.layout == EncoderLayout::bert) bert_layer(x, l, observer, threads);
    else modern_layer(x, l, observer, threads);
  }
  if (w_.final_norm_w.size() > 0) x = norm(x, w_.final_norm_w, w_.final_norm_b, config_.norm_eps);
  return x;
}

Map EncoderModel::forward_cached(const std::vector<int>& new_ids, KvCache& cache) const {
  (void)new_ids;
  (void)cache;
  assert(false && "an encoder has no incremental decoding: the session checks predicts_next_token()");
  return Map();
}

Map EncoderModel::logits(const Map& hidden, int threads) const {
  (void)hidden;
  (void)threads;
  assert(false && "an encoder has no next-token head: the session checks predicts_next_token()");
  return Map();
}

}  // namespace hs
