#include "core/analysis/head_pairs.h"

#include <algorithm>

namespace hs {

std::vector<HeadPair> sorted_pairs(const Map& distance, const Map& difference, PairSort by, bool descending) {
  std::vector<HeadPair> pairs;
  for (int a = 0; a < difference.rows(); ++a)
    for (int b = a + 1; b < difference.cols(); ++b) pairs.push_back({a, b, distance(a, b), difference(a, b)});
  auto key = [by](const HeadPair& p) {
    switch (by) {
      case PairSort::a: return float(p.a * 65536 + p.b);
      case PairSort::b: return float(p.b * 65536 + p.a);
      case PairSort::distance: return p.distance;
      case PairSort::difference: return p.difference;
    }
    return 0.0f;
  };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const HeadPair& x, const HeadPair& y) {
    return descending ? key(x) > key(y) : key(x) < key(y);
  });
  return pairs;
}

}  // namespace hs
