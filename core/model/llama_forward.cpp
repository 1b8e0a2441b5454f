#include "core/model/llama_forward.h"

#include <cassert>

#include "core/model/attention_layer.h"

namespace hs {
namespace {

Map project(const Map& x, const Map& w, const Vec& b, int threads) {
  Map y = matmul_wt(x, w, threads);  // [T, d] x [d, out] -> [T, out]
  if (b.size() > 0) y.rowwise() += b.transpose();
  return y;
}

int64_t count(const Map& m) { return m.size(); }
int64_t count(const Vec& v) { return v.size(); }

}  // namespace

LlamaModel::LlamaModel(LlamaConfig config, LlamaWeights weights, ModelInfo info)
    : config_(config), w_(std::move(weights)), info_(std::move(info)) {
  info_.d_model = config_.d_model;
  info_.n_heads = config_.n_heads;
  info_.n_kv_heads = config_.n_kv_heads;
  info_.d_head = config_.d_head;
  info_.n_layers = config_.n_layers;
  info_.causal = true;
  info_.vocab_size = config_.vocab;
  const LlamaLayer& l0 = w_.layers.at(0);
  info_.param_count = count(l0.wq) + count(l0.wk) + count(l0.wv) + count(l0.wo) + count(l0.bq) + count(l0.bk) +
                      count(l0.bv) + count(l0.bo);
  int64_t total = count(w_.embedding) + count(w_.final_norm) + count(w_.classifier);
  for (const LlamaLayer& l : w_.layers) {
    total += count(l.attn_norm) + count(l.wq) + count(l.wk) + count(l.wv) + count(l.wo) + count(l.bq) + count(l.bk) +
             count(l.bv) + count(l.bo) + count(l.ffn_norm) + count(l.w1) + count(l.w2) + count(l.w3);
  }
  info_.total_params = total;
}

Map LlamaModel::forward(const std::vector<int>& ids, Observer* observer, int threads) const {
  const LlamaConfig& c = config_;
  const int T = static_cast<int>(ids.size());
  AttentionConfig ac;
  ac.d_model = c.d_model;
  ac.n_heads = c.n_heads;
  ac.n_kv_heads = c.n_kv_heads;
  ac.d_head = c.d_head;
  ac.causal = true;
  ac.bias = false;

  Map x(T, c.d_model);  // [T, d]
  for (int t = 0; t < T; ++t) {
    assert(ids[size_t(t)] >= 0 && ids[size_t(t)] < c.vocab && "token id checked by the session");
    x.row(t) = w_.embedding.row(ids[size_t(t)]);
  }
  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = w_.layers[size_t(l)];
    const Map h = rms_norm(x, L.attn_norm, c.norm_eps);
    Map q = project(h, L.wq, L.bq, threads);  // [T, H*dh]
    Map k = project(h, L.wk, L.bk, threads);  // [T, G*dh]
    const Map v = project(h, L.wv, L.bv, threads);  // [T, G*dh]
    apply_rope(q, c.n_heads, c.d_head, c.rope_theta, c.rope);
    apply_rope(k, c.n_kv_heads, c.d_head, c.rope_theta, c.rope);
    const Map ctx = attend_heads(q, k, v, ac, l, observer, threads);  // [T, H*dh]
    const Map out = project(ctx, L.wo, L.bo, threads);                // [T, d]
    if (observer && observer->wants(TensorKind::output, l, -1)) observer->on_tensor(TensorKind::output, l, -1, out);
    x += out;
    const Map h2 = rms_norm(x, L.ffn_norm, c.norm_eps);
    Map gate = matmul_wt(h2, L.w1, threads);  // [T, hidden]
    const Map up = matmul_wt(h2, L.w3, threads);  // [T, hidden]
    gate = gate.unaryExpr([](float g) { return silu(g); }).cwiseProduct(up);
    x += matmul_wt(gate, L.w2, threads);  // [T, d]
  }
  return rms_norm(x, w_.final_norm, c.norm_eps);
}

Map LlamaModel::forward_cached(const std::vector<int>& new_ids, KvCache& cache) const {
  const LlamaConfig& c = config_;
  const int n = static_cast<int>(new_ids.size()), first = cache.length;
  if (cache.k.empty()) cache.k.assign(size_t(c.n_layers), Map(0, Eigen::Index(c.n_kv_heads) * c.d_head));
  if (cache.v.empty()) cache.v.assign(size_t(c.n_layers), Map(0, Eigen::Index(c.n_kv_heads) * c.d_head));
  AttentionConfig ac;
  ac.d_model = c.d_model;
  ac.n_heads = c.n_heads;
  ac.n_kv_heads = c.n_kv_heads;
  ac.d_head = c.d_head;
  ac.causal = true;
  ac.bias = false;
  Map x(n, c.d_model);  // [n, d]
  for (int t = 0; t < n; ++t) x.row(t) = w_.embedding.row(new_ids[size_t(t)]);
  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = w_.layers[size_t(l)];
    const Map h = rms_norm(x, L.attn_norm, c.norm_eps);
    Map q = project(h, L.wq, L.bq, 1);  // [n, H*dh]
    Map k = project(h, L.wk, L.bk, 1);  // [n, G*dh]
    apply_rope(q, c.n_heads, c.d_head, c.rope_theta, c.rope, first);
    apply_rope(k, c.n_kv_heads, c.d_head, c.rope_theta, c.rope, first);
    append_rows(cache.k[size_t(l)], k);
    append_rows(cache.v[size_t(l)], project(h, L.wv, L.bv, 1));
    const Map ctx = attend_cached(q, cache.k[size_t(l)], cache.v[size_t(l)], ac, first);
    x += project(ctx, L.wo, L.bo, 1);
    const Map h2 = rms_norm(x, L.ffn_norm, c.norm_eps);
    Map gate = matmul_wt(h2, L.w1);  // [n, hidden]
    gate = gate.unaryExpr([](float g) { return silu(g); }).cwiseProduct(matmul_wt(h2, L.w3));
    x += matmul_wt(gate, L.w2);
  }
  cache.length += n;
  return rms_norm(x, w_.final_norm, c.norm_eps);
}

Map LlamaModel::logits(const Map& hidden, int threads) const {
  const Map& cls = w_.classifier.size() > 0 ? w_.classifier : w_.embedding;  // [vocab, d]
  return matmul_wt(hidden, cls, threads);                                  // [n, vocab]
}

}  // namespace hs
