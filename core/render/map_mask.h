#pragma once
// Which cells of a drawn map no query could see. The mask travels with the map, from the run to
// the screen and to the figure, so no view re-derives it: a head's map, its layer's average and
// |A_a - A_b| of two heads of one layer carry the layer's mask (causal, sliding window); the
// attention rollout the mask of every layer composed; a zoomed region the mask of the tokens it
// covers; maps that are not query x key weights (a head-pair table) carry none.
#include <cstdint>

#include "core/model/attention_config.h"
#include "core/util/tensor.h"

namespace hs {

struct AttentionRun;

struct MapMask {
  bool causal = false;  // query i sees keys j <= i
  int64_t window = -1;  // >= 0: query i sees keys within `window` positions (|i - j| <= window)
  // The drawn map's cell (r, c) covers the full map's queries row0 + [r f, (r + 1) f) and keys
  // col0 + [c f, (c + 1) f) (f = factor; a zoomed or coarse region). It is masked only when every
  // (query, key) it covers is.
  int row0 = 0, col0 = 0, factor = 1;

  bool any() const { return causal || window >= 0; }
  // The full map's cell (i, j): hidden from query i.
  bool hides_token(int64_t i, int64_t j) const {
    return (causal && j > i) || (window >= 0 && (i - j > window || j - i > window));
  }
  // The drawn map's cell (r, c) of a map whose full side is `tokens` (cells past it are clipped).
  bool hides(int r, int c, int tokens) const;
  bool operator==(const MapMask& o) const {
    return causal == o.causal && window == o.window && row0 == o.row0 && col0 == o.col0 && factor == o.factor;
  }
  bool operator!=(const MapMask& o) const { return !(*this == o); }
};

// The mask of a layer's config (none for a single token: nothing to hide).
MapMask mask_of(const AttentionConfig& config);
// The mask of the run's layer: its heads, their average, |A_a - A_b| of two of them.
MapMask layer_mask(const AttentionRun& run, int layer);
// The rollout's: a product of every layer's 0.5 A + 0.5 I reaches key j from query i only where
// some chain of visible steps does: causal when every layer is, within the sum of the windows when
// every layer has one.
MapMask rollout_mask(const AttentionRun& run);
// The same mask for a region of the map: cell (0, 0) at the full map's (row0, col0), `factor`
// tokens a cell side.
MapMask region_mask(const MapMask& whole, int row0, int col0, int factor);

// t: a map on its colour scale ([rows, cols], the drawn cells of a map of `tokens` a side). The
// cells the mask hides become kMaskedT (core/render/colormap.h).
void apply_mask(const MapMask& mask, int tokens, Map& t);

}  // namespace hs
