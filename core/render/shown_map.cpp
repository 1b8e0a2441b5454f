#include "core/render/shown_map.h"

#include <algorithm>

#include "core/render/colour_scale.h"

namespace hs {

ShownMap plain_map(const Map& cells) { return {&cells, {}, int(std::max(cells.rows(), cells.cols()))}; }

ShownMap head_map(const AttentionRun& run, int layer, int head) {
  return {&run.attention[size_t(layer)][size_t(head)], layer_mask(run, layer), run.n_tokens()};
}

ShownMap average_map(const RunAnalysis& analysis, int layer) {
  return {&analysis.average[size_t(layer)], layer_mask(analysis.run, layer), analysis.run.n_tokens()};
}

ShownMap rollout_map(const RunAnalysis& analysis) {
  return {&analysis.rollout, rollout_mask(analysis.run), analysis.run.n_tokens()};
}

ShownMap derived_map(const Map& cells, const ShownMap& like, int row0, int col0, int factor) {
  ShownMap m{&cells, like.mask, like.tokens};
  if (factor > 0) m.mask = region_mask(like.mask, row0, col0, factor);
  return m;
}

void scale_shown(const ShownMap& map, const ScaleRange& range, Map& t) {
  scale_to_unit(*map.cells, range, t);
  apply_mask(map.mask, map.tokens, t);
}

}  // namespace hs
