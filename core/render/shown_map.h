#pragma once
// The maps views draw, each with the mask that travels with it (core/render/map_mask.h): the
// screen, the figures and the data exports take them from here, so none re-derives a mask.
#include "core/analysis/run_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/map_mask.h"

namespace hs {

struct ShownMap {
  const Map* cells = nullptr;  // [rows, cols]: a run's map, or a region of one (mask.row0 / col0 / factor)
  MapMask mask;
  int tokens = 0;              // the full map's side, in tokens (what mask positions refer to)
};

// Cells that are not one query's weights over keys (a head-pair table, a layers x heads table):
// no mask.
ShownMap plain_map(const Map& cells);
// One head's map, with its layer's mask.
ShownMap head_map(const AttentionRun& run, int layer, int head);
// The layer's average over heads, with the layer's mask.
ShownMap average_map(const RunAnalysis& analysis, int layer);
// The attention rollout through every layer, with the layers' masks composed (rollout_mask).
ShownMap rollout_map(const RunAnalysis& analysis);
// Other cells of the same tokens (|A_a - A_b| of two heads of `like`'s layer, a zoomed region of
// it): `cells` with `like`'s mask, moved to the region (row0, col0, factor) they cover.
ShownMap derived_map(const Map& cells, const ShownMap& like, int row0 = 0, int col0 = 0, int factor = 0);

// The map on `range` (core/render/colour_scale.h's scale_to_unit) with the hidden cells at
// kMaskedT: what the screen's shader and the figures colour.
void scale_shown(const ShownMap& map, const ScaleRange& range, Map& t);

}  // namespace hs
