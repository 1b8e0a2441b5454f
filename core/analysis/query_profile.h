#pragma once
// Where selected query tokens look, head by head: the Query view's data, exact even in
// long-input mode (from the run's exact rows).
#include <vector>

#include "core/model/model_run.h"
#include "core/util/tensor.h"

namespace hs {

// Where the selected queries look, head by head: profile(h, j) = sum over q in queries of A_h(q, j).
// [H, T]; each row sums to the number of valid queries.
Map query_profile(const LayerMaps& heads, const std::vector<int>& queries);

// The same for `layer` of a run; in long-input mode from exact rows (run.exact), so it is [H, T]
// with exact weights although the maps are block maxima.
Map query_profile(const AttentionRun& run, int layer, const std::vector<int>& queries);

// Columns of m taken `per` at a time, keeping each group's largest value. [rows, ceil(cols / per)]
Map binned_max(const Map& m, int per);

}  // namespace hs
