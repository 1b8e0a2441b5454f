#include "core/model/llama_forward.h"

#include <algorithm>
#include <cassert>
#include <map>

#include "core/model/attention_layer.h"
#include "core/model/context_editor.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

Map project(const Map& x, const LinearWeight& w, const Vec& b, int threads) {
  Map y = matmul_wt(x, w, threads);  // [T, d] x [d, out] -> [T, out]
  if (b.size() > 0) y.rowwise() += b.transpose();
  return y;
}

int64_t count(const LinearWeight& m) { return m.size(); }
int64_t count(const Vec& v) { return v.size(); }
int64_t bytes(const LinearWeight& m) { return m.bytes(); }
int64_t bytes(const Vec& v) { return v.size() * int64_t(sizeof(float)); }

float activate(GateActivation a, float g) {
  switch (a) {
    case GateActivation::silu: return silu(g);
    case GateActivation::gelu_tanh: return gelu_tanh(g);
    case GateActivation::gelu: return gelu_exact(g);
  }
  return g;
}

// The spec with the model's defaults filled in (theta 0 -> rope_theta, rotary_dim 0 -> d_head).
RopeSpec resolved(RopeSpec s, const LlamaConfig& c) {
  if (s.theta <= 0.0) s.theta = c.rope_theta;
  if (s.rotary_dim <= 0) s.rotary_dim = c.d_head;
  return s;
}

// llama2.c's RoPE: adjacent pairs, rope_theta, no scaling (computed as run.c does it).
bool is_llama2c_rope(const LlamaConfig& c) {
  return c.rope == RopePairs::adjacent && c.rope_global.type == RopeType::plain && c.rope_global.freq_factors.empty() &&
         !c.use_local_rope && (c.rope_global.theta <= 0.0 || c.rope_global.theta == double(c.rope_theta)) &&
         (c.rope_global.rotary_dim <= 0 || c.rope_global.rotary_dim == c.d_head);
}

}  // namespace

LlamaModel::LlamaModel(LlamaConfig config, LlamaWeights weights, ModelInfo info)
    : config_(std::move(config)), w_(std::move(weights)), info_(std::move(info)) {
  const LlamaConfig& c = config_;
  assert((c.layer_windows.empty() || int(c.layer_windows.size()) == c.n_layers) && "one window per layer");
  info_.d_model = c.d_model;
  info_.n_heads = c.n_heads;
  info_.n_kv_heads = c.n_kv_heads;
  info_.d_head = c.d_head;
  info_.n_layers = c.n_layers;
  info_.causal = true;
  info_.vocab_size = c.vocab;
  info_.score_scale = c.attn_scale;
  info_.softcap = c.attn_softcap;
  info_.final_softcap = c.final_softcap;
  // Attention layout: one window for every layer, or a list when they differ.
  info_.layer_windows.clear();
  info_.window = c.layer_window(0);
  for (int l = 0; l < c.n_layers; ++l) info_.layer_windows.push_back(c.layer_window(l));
  for (int l = 1; l < c.n_layers; ++l)
    if (c.layer_window(l) != info_.window) info_.window = -1;
  const RopeSpec global = resolved(c.rope_global, c);
  info_.rope_type = rope_type_name(global.type);
  info_.rope_theta = float(global.theta);
  info_.rope_local_theta = c.use_local_rope ? float(resolved(c.rope_local, c).theta) : 0.0f;
  info_.rotary_dim = global.rotary_dim;

  const LlamaLayer& l0 = w_.layers.at(0);
  info_.param_count = count(l0.wq) + count(l0.wk) + count(l0.wv) + count(l0.wo) + count(l0.bq) + count(l0.bk) +
                      count(l0.bv) + count(l0.bo);
  // Parameters, and the memory they take (4 bytes a float; a GGUF weight's encoded bytes).
  int64_t total = 0, weight_bytes = 0;
  auto add = [&](const auto& w) {
    total += count(w);
    weight_bytes += bytes(w);
  };
  add(w_.embedding);
  add(w_.final_norm);
  add(w_.classifier);
  for (const LlamaLayer& l : w_.layers) {
    for (const LinearWeight* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w1, &l.w2, &l.w3}) add(*m);
    for (const Vec* v : {&l.attn_norm, &l.bq, &l.bk, &l.bv, &l.bo, &l.q_norm, &l.k_norm, &l.post_attn_norm, &l.ffn_norm,
                         &l.post_ffn_norm})
      add(*v);
  }
  info_.total_params = total;
  info_.weight_bytes = weight_bytes;
  // Matrix encodings, most bytes first.
  std::map<std::string, int64_t> by_type;
  auto note = [&](const LinearWeight& m) {
    if (!m.empty()) by_type[m.type_name()] += m.bytes();
  };
  note(w_.embedding);
  note(w_.classifier);
  for (const LlamaLayer& l : w_.layers)
    for (const LinearWeight* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.w1, &l.w2, &l.w3}) note(*m);
  std::vector<std::pair<int64_t, std::string>> order;
  for (const auto& [type, n] : by_type) order.emplace_back(-n, type);
  std::sort(order.begin(), order.end());
  info_.weight_types.clear();
  for (const auto& [n, type] : order) info_.weight_types += (info_.weight_types.empty() ? "" : ", ") + type;
}

// The one copy of the model's settings into the engine's: ModelInfo, filled in above, says what
// attention every layer runs (core/model/model_run.h).
AttentionConfig LlamaModel::layer_attention(int layer) const { return layer_attention_config(info_, layer); }

Map LlamaModel::embed(const std::vector<int>& ids) const {
  const LlamaConfig& c = config_;
  for ([[maybe_unused]] const int id : ids) assert(id >= 0 && id < c.vocab && "token id checked by the session");
  Map x = w_.embedding.gather_rows(ids);  // [n, d]
  if (c.embed_scale != 1.0f) x *= c.embed_scale;
  return x;
}

void LlamaModel::rotate(Map& q, Map& k, int layer, int first, int seq_len) const {
  const LlamaConfig& c = config_;
  if (is_llama2c_rope(c)) {
    apply_rope(q, c.n_heads, c.d_head, c.rope_theta, c.rope, first);
    apply_rope(k, c.n_kv_heads, c.d_head, c.rope_theta, c.rope, first);
    return;
  }
  const RopeSpec spec = resolved(c.use_local_rope && c.is_local(layer) ? c.rope_local : c.rope_global, c);
  const RopeFrequencies f = rope_frequencies(spec, seq_len);
  apply_rope(q, c.n_heads, c.d_head, f, first, c.rope);
  apply_rope(k, c.n_kv_heads, c.d_head, f, first, c.rope);
}

template <typename Attend>
void LlamaModel::layer_step(Map& x, int layer, int first, int seq_len, int threads, Observer* observer,
                            Attend&& attend, int stacked) const {
  const LlamaConfig& c = config_;
  const LlamaLayer& L = w_.layers[size_t(layer)];
  const Map h = rms_norm(x, L.attn_norm, c.norm_eps);  // [n, d]
  Map q = project(h, L.wq, L.bq, threads);             // [n, H*dh]
  Map k = project(h, L.wk, L.bk, threads);             // [n, G*dh]
  Map v = project(h, L.wv, L.bv, threads);             // [n, G*dh]
  if (L.q_norm.size() > 0) rms_norm_heads(q, c.n_heads, c.d_head, L.q_norm, c.norm_eps);
  if (L.k_norm.size() > 0) rms_norm_heads(k, c.n_kv_heads, c.d_head, L.k_norm, c.norm_eps);
  Map ctx;  // [n, H*dh]
  if (stacked <= 0) {
    rotate(q, k, layer, first, seq_len);
    ctx = attend(q, std::move(k), std::move(v));
  } else {
    ctx.resize(q.rows(), q.cols());
    for (Eigen::Index r0 = 0; r0 < q.rows(); r0 += stacked) {  // sequence r0 / stacked: rows r0 .. r0 + stacked - 1
      Map qs = q.middleRows(r0, stacked), ks = k.middleRows(r0, stacked), vs = v.middleRows(r0, stacked);
      rotate(qs, ks, layer, 0, stacked);
      ctx.middleRows(r0, stacked) = attend(qs, std::move(ks), std::move(vs));
    }
  }
  if (ContextEditor* editor = as_context_editor(observer)) editor->edit_contexts(layer, ctx);  // head ablation
  Map out = project(ctx, L.wo, L.bo, threads);      // [n, d]
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  if (L.post_attn_norm.size() > 0) out = rms_norm(out, L.post_attn_norm, c.norm_eps);
  x += out;
  // The feed-forward block, kFeedForwardRows rows at a time: every row's numbers are the same as
  // in one product over all rows (rows are independent), while the [rows, hidden] activations are
  // held for one block only (gate and up are 76 MiB each at T = 4096 on a Qwen2.5-0.5B shape).
  const Eigen::Index n = x.rows();
  for (Eigen::Index r0 = 0; r0 < n; r0 += kFeedForwardRows) {
    const Eigen::Index rows = std::min<Eigen::Index>(kFeedForwardRows, n - r0);
    if (rows == n) {
      x += feed_forward(x, L, threads);
    } else {
      const Map part = x.middleRows(r0, rows);  // [rows, d]
      x.middleRows(r0, rows) += feed_forward(part, L, threads);
    }
  }
}

Map LlamaModel::feed_forward(const Map& x, const LlamaLayer& L, int threads) const {
  const LlamaConfig& c = config_;
  const Map h2 = rms_norm(x, L.ffn_norm, c.norm_eps);
  Map gate = matmul_wt(h2, L.w1, threads);      // [n, hidden]
  const Map up = matmul_wt(h2, L.w3, threads);  // [n, hidden]
  const GateActivation act = c.activation;
  // gate = act(gate) * up, element by element, rows split over the threads.
  const Eigen::Index rows = gate.rows(), width = gate.cols();
  parallel_for(int(rows), threads_for_work(threads, int64_t(rows) * width * 16), [&](int i) {
    float* g = gate.data() + Eigen::Index(i) * width;
    const float* u = up.data() + Eigen::Index(i) * width;
    for (Eigen::Index j = 0; j < width; ++j) g[j] = activate(act, g[j]) * u[j];
  });
  Map f = matmul_wt(gate, L.w2, threads);  // [n, d]
  if (L.post_ffn_norm.size() > 0) f = rms_norm(f, L.post_ffn_norm, c.norm_eps);
  return f;
}

void LlamaModel::run_layers(Map& x, int begin, int end, Observer* observer, int threads) const {
  const int T = static_cast<int>(x.rows());
  for (int l = begin; l < end; ++l) {
    const AttentionConfig ac = layer_attention(l);
    layer_step(x, l, 0, T, threads, observer, [&](const Map& q, Map k, Map v) {
      return attend_heads(q, k, v, ac, l, observer, threads);
    });
  }
}

void LlamaModel::run_layers_stacked(Map& x, int seq_len, int begin, int end, Observer* observer, int threads) const {
  assert(seq_len > 0 && x.rows() % seq_len == 0 && "whole sequences of seq_len rows");
  for (int l = begin; l < end; ++l) {
    const AttentionConfig ac = layer_attention(l);
    layer_step(
        x, l, 0, seq_len, threads, observer,
        [&](const Map& q, Map k, Map v) { return attend_heads(q, k, v, ac, l, observer, 1); }, seq_len);
  }
}

int64_t LlamaModel::stacked_floats_per_row() const {
  const LlamaConfig& c = config_;
  // x, h, out, h2, f: [d] each; q and ctx [H*dh], k and v [G*dh]; gate and up [hidden].
  return 5 * int64_t(c.d_model) + 2 * int64_t(c.n_heads + c.n_kv_heads) * c.d_head + 2 * int64_t(c.hidden);
}

Map LlamaModel::final_norm(const Map& x) const { return rms_norm(x, w_.final_norm, config_.norm_eps); }

Map LlamaModel::forward(const std::vector<int>& ids, Observer* observer, int threads) const {
  Map x = embed(ids);  // [T, d]
  run_layers(x, 0, config_.n_layers, observer, threads);
  return final_norm(x);
}

Map LlamaModel::forward_cached(const std::vector<int>& new_ids, KvCache& cache) const {
  const LlamaConfig& c = config_;
  const int n = static_cast<int>(new_ids.size()), first = cache.length;
  // LongRoPE: keys cached with the short factors are stale once the sequence outgrows the original
  // context; transformers then recomputes the whole cache, and so does this.
  const RopeSpec& g = c.rope_global;
  if (g.type == RopeType::longrope && first > 0 && first <= g.original_max_positions &&
      first + n > g.original_max_positions) {
    std::vector<int> all = cache.ids;
    all.insert(all.end(), new_ids.begin(), new_ids.end());
    cache = KvCache();
    return forward_cached(all, cache).bottomRows(n);
  }
  if (cache.k.empty()) cache.k.assign(size_t(c.n_layers), Map(0, Eigen::Index(c.n_kv_heads) * c.d_head));
  if (cache.v.empty()) cache.v.assign(size_t(c.n_layers), Map(0, Eigen::Index(c.n_kv_heads) * c.d_head));
  Map x = embed(new_ids);  // [n, d]
  for (int l = 0; l < c.n_layers; ++l) {
    const AttentionConfig ac = layer_attention(l);
    layer_step(x, l, first, first + n, cache.threads, nullptr, [&](const Map& q, Map k, Map v) {
      append_rows(cache.k[size_t(l)], k);
      append_rows(cache.v[size_t(l)], v);
      if (cache.rows) return attend_cached_rows(q, cache.k[size_t(l)], cache.v[size_t(l)], ac, first, l, *cache.rows);
      return attend_cached(q, cache.k[size_t(l)], cache.v[size_t(l)], ac, first);
    });
  }
  cache.length += n;
  cache.ids.insert(cache.ids.end(), new_ids.begin(), new_ids.end());
  return rms_norm(x, w_.final_norm, c.norm_eps);
}

Map LlamaModel::logits(const Map& hidden, int threads) const {
  Map y = matmul_wt(hidden, output(), threads);  // [n, vocab]
  if (config_.final_softcap > 0.0f) {
    const float cap = config_.final_softcap;
    y = y.unaryExpr([cap](float v) { return soft_cap(v, cap); });
  }
  return y;
}

std::vector<int> LlamaModel::next_token_ids(const Map& hidden, int threads) const {
  return output().argmax_wt(hidden, config_.final_softcap, threads);
}

}  // namespace hs
