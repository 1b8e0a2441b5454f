#include "core/render/map_mask.h"

#include <algorithm>

#include "core/model/model_run.h"
#include "core/render/colormap.h"

namespace hs {

bool MapMask::hides(int r, int c, int tokens) const {
  // The covered queries [i0, i1] and keys [j0, j1]; every query must see none of the keys.
  const int64_t f = factor, i0 = row0 + r * f, j0 = col0 + c * f;
  const int64_t i1 = std::min<int64_t>(i0 + f, tokens) - 1, j1 = std::min<int64_t>(j0 + f, tokens) - 1;
  if (f == 1) return hides_token(i0, j0);
  for (int64_t i = i0; i <= i1; ++i) {
    // Query i sees the keys [lo, hi] (attention_layer.h's visible_keys).
    int64_t lo = 0, hi = tokens - 1;
    if (causal) hi = i;
    if (window >= 0) lo = std::max<int64_t>(lo, i - window), hi = std::min<int64_t>(hi, i + window);
    if (lo <= j1 && j0 <= hi && lo <= hi) return false;
  }
  return true;
}

MapMask mask_of(const AttentionConfig& config) {
  MapMask m;
  m.causal = config.causal;
  m.window = config.window;
  return m;
}

MapMask layer_mask(const AttentionRun& run, int layer) {
  if (run.n_tokens() < 2 || layer < 0 || layer >= run.n_layers()) return {};
  MapMask m = mask_of(layer_attention_config(run.info, layer));
  m.factor = std::max(run.map_factor, 1);
  return m;
}

MapMask rollout_mask(const AttentionRun& run) {
  if (run.n_tokens() < 2 || run.n_layers() == 0) return {};
  MapMask m;
  m.causal = true;
  m.window = 0;
  for (int l = 0; l < run.n_layers(); ++l) {
    const AttentionConfig c = layer_attention_config(run.info, l);
    m.causal = m.causal && c.causal;
    // A layer without a window reaches every key: so does the product.
    m.window = (m.window < 0 || c.window < 0) ? -1 : m.window + c.window;
  }
  if (m.window > run.n_tokens()) m.window = -1;
  m.factor = std::max(run.map_factor, 1);
  return m;
}

MapMask region_mask(const MapMask& whole, int row0, int col0, int factor) {
  MapMask m = whole;
  m.row0 = row0, m.col0 = col0, m.factor = std::max(factor, 1);
  return m;
}

void apply_mask(const MapMask& mask, int tokens, Map& t) {
  if (!mask.any()) return;
  const int rows = int(t.rows()), cols = int(t.cols());
  if (mask.factor == 1) {
    // One interval of visible keys per row: the rest of the row is hidden.
    for (int r = 0; r < rows; ++r) {
      const int64_t i = mask.row0 + r;
      int64_t lo = 0, hi = tokens - 1;
      if (mask.causal) hi = i;
      if (mask.window >= 0) lo = std::max<int64_t>(lo, i - mask.window), hi = std::min<int64_t>(hi, i + mask.window);
      // In the drawn map's columns: [lo - col0, hi - col0].
      const int64_t a = std::clamp<int64_t>(lo - mask.col0, 0, cols), b = std::clamp<int64_t>(hi - mask.col0 + 1, 0, cols);
      if (a >= b) {
        t.row(r).setConstant(kMaskedT);
        continue;
      }
      if (a > 0) t.row(r).head(a).setConstant(kMaskedT);
      if (b < cols) t.row(r).tail(cols - b).setConstant(kMaskedT);
    }
    return;
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      if (mask.hides(r, c, tokens)) t(r, c) = kMaskedT;
}

}  // namespace hs
