#include "core/model/prefix_cache.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/util/heap_prefault.h"
#include "core/util/parallel.h"

namespace hs {

void PrefixCache::keep(std::shared_ptr<const AttentionRun> r) {
  const bool same = model ? r && r->token_ids == ids : r && !key.empty() && r->tokens == tokens;
  if (filled && same) run = std::move(r);
  else clear();
  filled = false;
}

void PrefixCache::clear() {
  model.reset();
  key.clear();
  tokens.clear();
  ids.clear();
  keys.clear();
  values.clear();
  run.reset();
}

int shared_prefix(const std::vector<int>& a, const std::vector<int>& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t p = 0;
  while (p < n && a[p] == b[p]) ++p;
  return static_cast<int>(p);
}

int shared_prefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t p = 0;
  while (p < n && a[p] == b[p]) ++p;
  return static_cast<int>(p);
}

bool KeyValueRecorder::wants(TensorKind kind, int layer, int) const {
  return (kind == TensorKind::keys || kind == TensorKind::values) && layer >= 0 && layer < int(keys.size());
}

void KeyValueRecorder::on_tensor(TensorKind kind, int layer, int head, const Map& tensor) {
  take_tensor(kind, layer, head, Map(tensor));
}

void KeyValueRecorder::take_tensor(TensorKind kind, int layer, int, Map&& tensor) {
  (kind == TensorKind::keys ? keys : values)[size_t(layer)] = std::move(tensor);
}

namespace {

// dst [T, T] = the first P rows and columns of src (row stride src_cols), `fill` right of them in
// rows 0 .. P-1, then rows P .. T-1 from `rows` [T - P, T]: one memcpy per row, each cell written once.
void assemble_map(Map& dst, const Map& src, int P, int T, const Map* rows, float fill) {
  dst.resize(T, T);
  const int n = T - P;
  for (int i = 0; i < P; ++i) {
    float* d = dst.data() + int64_t(i) * T;
    std::memcpy(d, src.data() + int64_t(i) * src.cols(), sizeof(float) * size_t(P));
    std::fill(d + P, d + T, fill);
  }
  if (n > 0) std::memcpy(dst.data() + int64_t(P) * T, rows->data(), sizeof(float) * size_t(n) * size_t(T));
}

}  // namespace

void assemble_prefix_maps(AttentionRun& run, const AttentionRun& old, int P, int T, const CachedRows& rows,
                          bool keep_scores, const std::vector<Map>& keys, int threads) {
  const int n = T - P;
  const size_t L = old.attention.size(), H = L ? old.attention[0].size() : 0;
  run.attention.assign(L, LayerMaps(H));
  if (keep_scores) {
    run.scores.assign(L, LayerMaps(H));
    run.queries.resize(L);
    run.keys = keys;
  }
  const float neg_inf = -std::numeric_limits<float>::infinity();
  // Every map [T, T] (scores: masked cells -inf) from the old run's top-left P x P and the new
  // rows, the maps split between threads (the copies' page faults and memory traffic, ~54 MB for
  // 24 x 14 maps at T = 200, were the keystroke's largest part after the engine).
  const int maps = int(L * H);
  // Allocated here, on the calling thread, so that its arena's memory made ready by
  // prefault_next_maps (or freed by the run before) serves them; the threads below only fill.
  for (size_t l = 0; l < L; ++l)
    for (size_t h = 0; h < H; ++h) {
      run.attention[l][h].resize(T, T);
      if (keep_scores) run.scores[l][h].resize(T, T);
    }
  parallel_for(maps, std::min(threads_for_work(threads, int64_t(maps) * T * T * 8), maps), [&](int m) {
    const size_t l = size_t(m) / H, h = size_t(m) % H;
    assemble_map(run.attention[l][h], old.attention[l][h], P, T, n > 0 ? &rows.attention[l][h] : nullptr, 0.0f);
    if (keep_scores)
      assemble_map(run.scores[l][h], old.scores[l][h], P, T, n > 0 ? &rows.scores[l][h] : nullptr, neg_inf);
  });
  if (!keep_scores) return;
  for (size_t l = 0; l < L; ++l) {
    const Map& q_old = old.queries[l];  // [T_old, H*dh]
    Map& q = run.queries[l];            // [T, H*dh]
    q.resize(T, q_old.cols());
    q.topRows(P) = q_old.topRows(P);
    if (n > 0) q.bottomRows(n) = rows.queries[l];
  }
}

int64_t prefault_next_maps(const PrefixCache& cache, int extra_tokens) {
  if (!cache.run || cache.run->compact() || cache.run->attention.empty()) return 0;
  const AttentionRun& r = *cache.run;
  const int64_t T = int64_t(r.n_tokens()) + std::max(0, extra_tokens);
  const int64_t maps = int64_t(r.n_layers()) * r.n_heads() * (cache.keep_scores ? 2 : 1);
  const int64_t map_bytes = T * T * int64_t(sizeof(float));
  // At most 128 MiB held ready, in whole maps (the 0.5B-shaped file at T = 200: 55 MiB; a file opened and never
  // typed into keeps no more than this beyond its maps).
  constexpr int64_t kMostReady = int64_t(128) << 20;
  const int64_t ready = std::min(maps, std::max<int64_t>(1, kMostReady / map_bytes));
  return prefault_heap(ready * map_bytes, map_bytes);
}

}  // namespace hs
