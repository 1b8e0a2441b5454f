#pragma once
// The head-difference table's rows: every pair of heads of a layer with its difference, sorted.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

struct HeadPair {
  int a = 0, b = 0;
  float difference = 0;
};

enum class PairSort { a, b, difference };

// Every pair a < b of the [H, H] difference matrix, sorted.
std::vector<HeadPair> sorted_pairs(const Map& difference, PairSort by, bool descending);

}  // namespace hs
