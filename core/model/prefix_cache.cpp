#include "core/model/prefix_cache.h"

#include <algorithm>
#include <limits>

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

void assemble_prefix_maps(AttentionRun& run, const AttentionRun& old, int P, int T, const CachedRows& rows,
                          bool keep_scores, const std::vector<Map>& keys) {
  const int n = T - P;
  const size_t L = old.attention.size(), H = L ? old.attention[0].size() : 0;
  run.attention.assign(L, LayerMaps(H));
  if (keep_scores) {
    run.scores.assign(L, LayerMaps(H));
    run.queries.resize(L);
    run.keys = keys;
  }
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (size_t l = 0; l < L; ++l) {
    for (size_t h = 0; h < H; ++h) {
      // A_h: the prefix's rows (0 past column P - 1: causal), then the new rows. Each cell is
      // written once (no zero fill of what is copied over: for GPT-2 small that fill was as long
      // as the copy).
      Map& a = run.attention[l][h];  // [T, T]
      a.resize(T, T);
      a.topLeftCorner(P, P) = old.attention[l][h].topLeftCorner(P, P);
      a.topRightCorner(P, n).setZero();
      if (n > 0) a.bottomRows(n) = rows.attention[l][h];
      if (!keep_scores) continue;
      Map& s = run.scores[l][h];  // [T, T], masked cells -inf
      s.resize(T, T);
      s.topLeftCorner(P, P) = old.scores[l][h].topLeftCorner(P, P);
      s.topRightCorner(P, n).setConstant(neg_inf);
      if (n > 0) s.bottomRows(n) = rows.scores[l][h];
    }
    if (keep_scores) {
      const Map& q_old = old.queries[l];  // [T_old, H*dh]
      Map& q = run.queries[l];            // [T, H*dh]
      q.resize(T, q_old.cols());
      q.topRows(P) = q_old.topRows(P);
      if (n > 0) q.bottomRows(n) = rows.queries[l];
    }
  }
}

}  // namespace hs
