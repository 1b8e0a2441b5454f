#pragma once
// The head-pair table's rows: every pair of heads of a layer with its distance and difference
// (core/analysis/head_stats.h), sorted.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

struct HeadPair {
  int a = 0, b = 0;
  float distance = 0;
  float difference = 0;
};

enum class PairSort { a, b, distance, difference };

// Every pair a < b of the [H, H] matrices, sorted.
std::vector<HeadPair> sorted_pairs(const Map& distance, const Map& difference, PairSort by, bool descending);

}  // namespace hs
