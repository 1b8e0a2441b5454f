#include "core/model/gpt2_forward.h"

#include <cassert>
#include <cmath>

#include "core/model/attention_layer.h"
#include "core/model/context_editor.h"
#include "core/model/transformer_ops.h"

namespace hs {

Gpt2Model::Gpt2Model(Gpt2Config config, Gpt2Weights weights, ModelInfo info)
    : config_(config), w_(std::move(weights)), info_(std::move(info)) {
  const int64_t d = config_.d_model;
  info_.d_model = config_.d_model;
  info_.n_heads = config_.n_heads;
  info_.n_kv_heads = config_.n_heads;
  info_.d_head = config_.d_model / config_.n_heads;
  info_.n_layers = config_.n_layers;
  info_.causal = true;
  info_.vocab_size = config_.vocab;
  info_.param_count = 4 * d * d + 4 * d;  // c_attn [d, 3d] + [3d], c_proj [d, d] + [d]
  int64_t per_layer = 4 * d + info_.param_count + 2 * d * config_.inner + config_.inner + d;
  info_.total_params = w_.wte.size() + w_.wpe.size() + config_.n_layers * per_layer + 2 * d + w_.lm_head.size();
  info_.weight_bytes = info_.total_params * int64_t(sizeof(float));
  info_.weight_types = "F32";
}

Map Gpt2Model::mlp(const Map& x, const Gpt2Layer& L, int threads) const {
  const bool exact = config_.gelu == Gelu::exact;
  Map m = matmul(layer_norm(x, L.ln2_w, L.ln2_b, config_.norm_eps), L.fc_w, threads);  // [T, inner]
  m.rowwise() += L.fc_b.transpose();
  m = m.unaryExpr([exact](float v) { return exact ? 0.5f * v * (1.0f + std::erf(v * 0.70710678f)) : gelu_tanh(v); });
  Map out = matmul(m, L.out_w, threads);  // [T, d]
  out.rowwise() += L.out_b.transpose();
  return out;
}

Map Gpt2Model::embed_tokens(const std::vector<int>& ids) const {
  const int T = static_cast<int>(ids.size());
  assert(T <= config_.max_positions && "sequence length checked by the session");
  Map x(T, config_.d_model);  // [T, d]
  for (int t = 0; t < T; ++t) x.row(t) = w_.wte.row(ids[size_t(t)]) + w_.wpe.row(t);
  return x;
}

void Gpt2Model::run_layers(Map& x, int begin, int end, Observer* observer, int threads) const {
  run_gpt2_layers(x, begin, end, observer, threads, 0);
}

void Gpt2Model::run_layers_stacked(Map& x, int seq_len, int begin, int end, Observer* observer, int threads) const {
  assert(seq_len > 0 && x.rows() % seq_len == 0 && "whole sequences of seq_len rows");
  run_gpt2_layers(x, begin, end, observer, threads, seq_len);
}

int64_t Gpt2Model::stacked_floats_per_row() const {
  // x, h, out, the MLP's input and output: [d] each; qkv [3d], q, k, v and ctx [d]; the MLP's hidden rows [inner] twice.
  return 5 * int64_t(config_.d_model) + 7 * int64_t(config_.d_model) + 2 * int64_t(config_.inner);
}

void Gpt2Model::run_gpt2_layers(Map& x, int begin, int end, Observer* observer, int threads, int stacked) const {
  const Gpt2Config& c = config_;
  const int d = c.d_model;
  const AttentionConfig ac = layer_attention_config(info_, 0);  // every GPT-2 layer attends alike
  for (int l = begin; l < end; ++l) {
    const Gpt2Layer& L = w_.layers[size_t(l)];
    const Map h = layer_norm(x, L.ln1_w, L.ln1_b, c.norm_eps);
    Map qkv = matmul(h, L.attn_w, threads);  // [n, 3d]
    qkv.rowwise() += L.attn_b.transpose();
    Map ctx;  // [n, d]
    if (stacked <= 0) {
      const Map q = qkv.leftCols(d), k = qkv.middleCols(d, d), v = qkv.rightCols(d);  // [T, d] each
      ctx = attend_heads(q, k, v, ac, l, observer, threads);
    } else {
      ctx.resize(qkv.rows(), d);
      for (Eigen::Index r0 = 0; r0 < qkv.rows(); r0 += stacked) {  // one sequence: rows r0 .. r0 + stacked - 1
        const auto rows = qkv.middleRows(r0, stacked);
        const Map q = rows.leftCols(d), k = rows.middleCols(d, d), v = rows.rightCols(d);  // [T, d] each
        ctx.middleRows(r0, stacked) = attend_heads(q, k, v, ac, l, observer, 1);
      }
    }
    if (ContextEditor* editor = as_context_editor(observer)) editor->edit_contexts(l, ctx);  // head ablation
    Map out = matmul(ctx, L.proj_w, threads);
    out.rowwise() += L.proj_b.transpose();
    if (observer && observer->wants(TensorKind::output, l, -1)) observer->on_tensor(TensorKind::output, l, -1, out);
    x += out;
    x += mlp(x, L, threads);
  }
}

Map Gpt2Model::final_norm(const Map& x) const { return layer_norm(x, w_.lnf_w, w_.lnf_b, config_.norm_eps); }

Map Gpt2Model::forward(const std::vector<int>& ids, Observer* observer, int threads) const {
  Map x = embed_tokens(ids);  // [T, d]
  run_layers(x, 0, config_.n_layers, observer, threads);
  return final_norm(x);
}

Map Gpt2Model::forward_cached(const std::vector<int>& new_ids, KvCache& cache) const {
  const Gpt2Config& c = config_;
  const int n = static_cast<int>(new_ids.size()), first = cache.length, d = c.d_model;
  const AttentionConfig ac = layer_attention_config(info_, 0);  // every GPT-2 layer attends alike
  if (cache.k.empty()) cache.k.assign(size_t(c.n_layers), Map(0, d));
  if (cache.v.empty()) cache.v.assign(size_t(c.n_layers), Map(0, d));
  Map x(n, d);  // [n, d]
  for (int t = 0; t < n; ++t) x.row(t) = w_.wte.row(new_ids[size_t(t)]) + w_.wpe.row(first + t);
  for (int l = 0; l < c.n_layers; ++l) {
    const Gpt2Layer& L = w_.layers[size_t(l)];
    Map qkv = matmul(layer_norm(x, L.ln1_w, L.ln1_b, c.norm_eps), L.attn_w, cache.threads);  // [n, 3d]
    qkv.rowwise() += L.attn_b.transpose();
    append_rows(cache.k[size_t(l)], qkv.middleCols(d, d));
    append_rows(cache.v[size_t(l)], qkv.rightCols(d));
    const Map ctx = cache.rows ? attend_cached_rows(qkv.leftCols(d), cache.k[size_t(l)], cache.v[size_t(l)], ac, first,
                                                    l, *cache.rows)
                               : attend_cached(qkv.leftCols(d), cache.k[size_t(l)], cache.v[size_t(l)], ac, first);
    Map out = matmul(ctx, L.proj_w, cache.threads);
    out.rowwise() += L.proj_b.transpose();
    x += out;
    x += mlp(x, L, cache.threads);
  }
  cache.length += n;
  return layer_norm(x, w_.lnf_w, w_.lnf_b, c.norm_eps);
}

Map Gpt2Model::logits(const Map& hidden, int threads) const {
  const Map& head = w_.lm_head.size() > 0 ? w_.lm_head : w_.wte;  // [vocab, d]
  return matmul_wt(hidden, head, threads);                      // [n, vocab]
}

}  // namespace hs
