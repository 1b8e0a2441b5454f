#pragma once
// Small reshapes of Derived for the query and difference views (kept out of the panels).
#include <vector>

#include "core/model/model_run.h"
#include "core/util/tensor.h"

namespace hs::gui {

// Where the selected queries look, head by head: profile(h, j) = sum over q in queries of A_h(q, j).
// [H, T]; each row sums to the number of valid queries.
Map query_profile(const LayerMaps& heads, const std::vector<int>& queries);

// The same for `layer` of a run; in long-input mode from exact rows (run.exact), so it is [H, T]
// with exact weights although the maps are block maxima.
Map query_profile(const AttentionRun& run, int layer, const std::vector<int>& queries);

// Columns of m taken `per` at a time, keeping each group's largest value. [rows, ceil(cols / per)]
Map binned_max(const Map& m, int per);

struct HeadPair {
  int a = 0, b = 0;
  float difference = 0;
};

enum class PairSort { a, b, difference };

// Every pair a < b of the [H, H] difference matrix, sorted.
std::vector<HeadPair> sorted_pairs(const Map& difference, PairSort by, bool descending);

}  // namespace hs::gui
