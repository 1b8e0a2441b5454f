#include "core/model/synthetic_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/model/attention_layer.h"
#include "core/model/embedding.h"
#include "core/model/prefix_cache.h"
#include "core/model/transformer_ops.h"
#include "core/text/word_tokenizer.h"
#include "core/util/errors.h"
#include "core/util/finite.h"

namespace hs {
namespace {

ModelInfo layer_info(const AttentionConfig& c, const std::string& kind) {
  ModelInfo info;
  info.kind = kind;
  info.name = kind + " d_model " + std::to_string(c.d_model);
  info.d_model = c.d_model;
  info.n_heads = c.n_heads;
  info.n_kv_heads = c.kv_heads();
  info.d_head = c.head_width();
  info.n_layers = 1;
  info.causal = c.causal;
  info.window = c.window;
  info.temperature = c.temperature;
  info.param_count = attention_param_count(c);
  info.total_params = info.param_count;
  info.weight_bytes = info.param_count * int64_t(sizeof(float));
  info.weight_types = "F32";
  info.score_scale = c.scale;
  info.softcap = c.softcap;
  return info;
}

void check_tokens(int64_t tokens, const AttentionConfig& c, const RunOptions& options) {
  if (tokens > kMaxTokens) {
    throw InputError("the input has " + std::to_string(tokens) + " tokens; the limit is " + std::to_string(kMaxTokens));
  }
  if (options.display_size > 0) {  // long-input mode holds only the kept [T, T] maps
    if (const int64_t kept = options.keep.count(1, c.n_heads); kept > 0) check_map_memory(tokens, kept);
    return;
  }
  check_map_memory(tokens, int64_t(c.n_heads) * (options.keep_scores ? 2 : 1));
}

[[noreturn]] void throw_overflow(const Map& x) {
  char largest[32];
  std::snprintf(largest, sizeof largest, "%g", static_cast<double>(x.cwiseAbs().maxCoeff()));
  throw InputError(std::string("the attention scores overflowed float32 (the largest input value is ") + largest +
                   "); scale the input down");
}

// Scores beyond float32's range (an input of 1e30, say) turn rows into NaN; say so instead of
// returning it. The output is enough to tell (no second pass over the maps, 12 MiB at T = 512 x
// 12 heads): softmax_rows leaves a row either summing to 1 (its largest score gives exp(0) = 1,
// so the sum is at least 1 and finite) or all NaN (a NaN, +inf or all -inf row: inf - inf),
// and a NaN weight makes its row of the context, so of the output, NaN (C_h = A_h v sums it in,
// and so does concat Wo^T). Long-input mode checks only the output too.
// One vectorised pass on the exponent bits (Eigen's allFinite ran a scalar loop: ~1% of a layer).
void check_finite(const Map& output, const Map& x) {
  if (first_non_finite(output.data(), output.size()) >= 0) throw_overflow(x);
}

AttentionRun run_compact_layer(const Map& x, const AttentionWeights& weights, const AttentionConfig& c,
                               std::vector<std::string> tokens, const RunOptions& options) {
  check_tokens(x.rows(), c, options);
  CompactRecorder recorder(1, c.n_heads, int(x.rows()), options.display_size, options.keep, options.stream_rows);
  ObserverPair both(&recorder, options.observer);
  attention_layer_forward(x, weights, c, 0, &both, options.threads);
  check_finite(recorder.output, x);
  AttentionRun run;
  run.tokens = std::move(tokens);
  run.prompt_tokens = run.n_tokens();
  run.info = layer_info(c, "weights");
  run.output = std::move(recorder.output);
  take_compact(run, std::move(recorder), c);
  return run;
}

}  // namespace

void check_synthetic_size(const AttentionConfig& c) {
  if (c.d_model > kMaxSyntheticDModel) {
    throw InputError("d_model (" + std::to_string(c.d_model) + ") is over the synthetic model's limit of " +
                     std::to_string(kMaxSyntheticDModel) + " (its weights are random; a wider trained model loads with --model)");
  }
  if (const int64_t params = attention_param_count(c); params > kMaxSyntheticParams) {
    throw InputError("the synthetic layer would hold " + std::to_string(params) + " parameters (d_model " +
                     std::to_string(c.d_model) + ", " + std::to_string(c.n_heads) + " heads of width " +
                     std::to_string(c.head_width()) + "); the limit is " + std::to_string(kMaxSyntheticParams) +
                     " (use fewer heads or a narrower --d-head)");
  }
}

AttentionRun run_synthetic(std::string_view sentence, const SyntheticSpec& spec, const RunOptions& options) {
  return run_synthetic_tokens(token_texts(tokenize_words(sentence)), spec, options);
}

AttentionRun run_synthetic_tokens(const std::vector<std::string>& tokens, const SyntheticSpec& spec,
                                  const RunOptions& options) {
  spec.attention.validate();
  check_synthetic_size(spec.attention);
  if (tokens.empty()) throw InputError("the sentence is empty: type at least one word");
  check_tokens(static_cast<int64_t>(tokens.size()), spec.attention, options);
  const Map x = embed_tokens(tokens, spec.attention.d_model, spec.seed);
  const AttentionWeights w = init_attention_weights(spec.attention, spec.seed);
  AttentionRun run = run_attention_layer(x, w, spec.attention, tokens, options);
  run.info = layer_info(spec.attention, "synthetic");
  return run;
}

AttentionRun run_attention_layer(const Map& x, const AttentionWeights& weights, const AttentionConfig& c,
                                 std::vector<std::string> tokens, const RunOptions& options) {
  c.validate();
  if (x.rows() == 0) throw InputError("the input has no tokens");
  if (x.cols() != c.d_model) {
    throw InputError("the input has width " + std::to_string(x.cols()) + "; expected d_model " +
                     std::to_string(c.d_model));
  }
  if (options.display_size > 0) return run_compact_layer(x, weights, c, std::move(tokens), options);
  check_tokens(x.rows(), c, options);
  MapRecorder recorder(1, c.n_heads, options.keep_scores);
  recorder.keep_output = false;  // the layer returns it: no copy
  ObserverPair both(&recorder, options.observer);
  Map output = attention_layer_forward(x, weights, c, 0, &both, options.threads);  // [T, d_model]
  check_finite(output, x);
  AttentionRun run;
  run.tokens = std::move(tokens);
  run.prompt_tokens = run.n_tokens();
  run.info = layer_info(c, "weights");
  run.attention = std::move(recorder.attention);
  run.scores = std::move(recorder.scores);
  run.queries = std::move(recorder.queries);
  run.keys = std::move(recorder.keys);
  run.output = std::move(output);
  return run;
}

namespace {

// The layer on tokens P .. T-1 only, rows 0 .. P-1 from the cache (same key, same first P tokens).
AttentionRun run_layer_from_prefix(const Map& x, const AttentionWeights& w, const AttentionConfig& c,
                                   std::vector<std::string> tokens, int P, const RunOptions& options,
                                   PrefixCache& cache) {
  const AttentionRun& old = *cache.run;
  const int T = static_cast<int>(x.rows()), n = T - P;
  const Map xn = x.bottomRows(n);  // [n, d_model]
  // k, v: [T, G*dh], the cached prefix's rows, then the new ones; q: [n, H*dh] of the new rows.
  Map k(T, w.w_k.rows()), v(T, w.w_v.rows());
  k.topRows(P) = cache.keys[0].topRows(P);
  v.topRows(P) = cache.values[0].topRows(P);
  CachedRows rows;
  rows.keep_scores = options.keep_scores;
  Map out_new(n, c.d_model);  // [n, d_model]
  if (n > 0) {
    k.bottomRows(n) = (xn * w.w_k.transpose()).rowwise() + w.b_k.transpose();
    v.bottomRows(n) = (xn * w.w_v.transpose()).rowwise() + w.b_v.transpose();
    const Map q = (xn * w.w_q.transpose()).rowwise() + w.b_q.transpose();
    const Map ctx = attend_cached_rows(q, k, v, c, P, 0, rows);  // [n, H*dh]
    out_new = (ctx * w.w_o.transpose()).rowwise() + w.b_o.transpose();
    // The overflow check of a whole run, on the new rows.
    bool ok = out_new.allFinite();
    for (const Map& a : rows.attention[0]) ok = ok && (a.rowwise().sum().array() - 1.0f).abs().maxCoeff() <= 1e-3f;
    if (!ok) throw_overflow(x);
  }
  AttentionRun run;
  run.tokens = std::move(tokens);
  run.prompt_tokens = run.n_tokens();
  run.info = layer_info(c, "weights");
  assemble_prefix_maps(run, old, P, T, rows, options.keep_scores, {k});
  run.output.resize(T, c.d_model);
  run.output.topRows(P) = old.output.topRows(P);
  if (n > 0) run.output.bottomRows(n) = out_new;
  cache.tokens = run.tokens;
  cache.keys = {std::move(k)};
  cache.values = {std::move(v)};
  cache.run.reset();  // the caller keeps the new run (PrefixCache::keep)
  cache.reused = P;
  cache.filled = true;
  return run;
}

}  // namespace

AttentionRun run_attention_layer_cached(const Map& x, const AttentionWeights& weights, const AttentionConfig& c,
                                        std::vector<std::string> tokens, const std::string& key,
                                        const RunOptions& options) {
  PrefixCache* cache = options.prefix_cache;
  RunOptions whole = options;
  whole.prefix_cache = nullptr;
  if (!cache) return run_attention_layer(x, weights, c, std::move(tokens), whole);
  cache->reused = -1;
  cache->filled = false;
  // Only a causal layer's rows stay as they were when later tokens change; the scrambled lesson
  // mixes tokens across heads.
  const bool cacheable = c.causal && !c.scrambled_reshape && options.display_size == 0 && !options.observer &&
                         !key.empty() && x.rows() == int64_t(tokens.size());
  if (!cacheable) {
    cache->clear();
    return run_attention_layer(x, weights, c, std::move(tokens), whole);
  }
  c.validate();
  check_tokens(x.rows(), c, options);
  if (!cache->model && cache->key == key && cache->keep_scores == options.keep_scores && cache->run &&
      cache->run->tokens == cache->tokens && cache->keys.size() == 1) {
    const int P = shared_prefix(tokens, cache->tokens);
    if (P > 0) return run_layer_from_prefix(x, weights, c, std::move(tokens), P, options, *cache);
  }
  KeyValueRecorder key_values(1);
  whole.observer = &key_values;
  AttentionRun run = run_attention_layer(x, weights, c, std::move(tokens), whole);
  cache->clear();
  cache->key = key;
  cache->keep_scores = options.keep_scores;
  cache->tokens = run.tokens;
  cache->keys = std::move(key_values.keys);
  cache->values = std::move(key_values.values);
  cache->filled = true;
  return run;
}

}  // namespace hs
