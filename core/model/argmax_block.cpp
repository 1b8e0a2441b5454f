#include "core/model/argmax_block.h"

#include <algorithm>

namespace hs {
namespace {

// One value at a time: the rule itself.
void argmax_each(const float* row, int64_t n, int64_t first_id, ArgmaxState& best) {
  for (int64_t j = 0; j < n; ++j)
    if (best.index < 0 || row[j] > best.value) best.value = row[j], best.index = first_id + j;
}

constexpr int kLanes = 8;
constexpr int64_t kChunk = 4 * kLanes;

}  // namespace

void argmax_block(const float* row, int64_t n, int64_t first_id, ArgmaxState& best) {
  int64_t j = 0;
  for (; j + kChunk <= n; j += kChunk) {
    const float* c = row + j;
    // The chunk's largest value lane by lane (element-wise selects, which the compiler turns into
    // vector compares), and whether it holds a NaN (c[k] != c[k]).
    float lane[kLanes];
    int nan[kLanes];
    for (int i = 0; i < kLanes; ++i) lane[i] = c[i], nan[i] = c[i] != c[i];
    for (int64_t k = kLanes; k < kChunk; k += kLanes)
      for (int i = 0; i < kLanes; ++i) {
        const float v = c[k + i];
        lane[i] = v > lane[i] ? v : lane[i];
        nan[i] |= v != v;
      }
    float m = lane[0];
    int any_nan = nan[0];
    for (int i = 1; i < kLanes; ++i) m = lane[i] > m ? lane[i] : m, any_nan |= nan[i];
    if (any_nan || best.index < 0) {
      argmax_each(c, kChunk, first_id + j, best);
    } else if (m > best.value) {
      // Testing in order ends on the chunk's first value equal to its largest.
      const int64_t k = std::find(c, c + kChunk, m) - c;
      best.value = c[k], best.index = first_id + j + k;
    }
  }
  argmax_each(row + j, n - j, first_id + j, best);
}

}  // namespace hs
