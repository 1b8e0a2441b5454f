#pragma once
// The running argmax of a row of logits taken a block of values at a time: the next-token
// prediction scans [T, 256] products of the output matrix (quantized_matrix.h, argmax_wt), and
// testing every value with a branch is slower than the products' decoding. A block's largest
// value is found first (no branch per value) and only a block that beats the best so far is
// searched for its first index: the result equals testing every value in order.
#include <cstdint>

namespace hs {

// The best value so far and its index (-1: nothing seen yet).
struct ArgmaxState {
  float value = 0.0f;
  int64_t index = -1;
};

// Takes row[0 .. n-1] (ids first_id .. first_id + n - 1) into `best`, with the rule of testing
// them one by one in order: v replaces the best when best.index < 0 or v > best.value (ties keep
// the lower id; a NaN never replaces, and is kept only when it came first).
void argmax_block(const float* row, int64_t n, int64_t first_id, ArgmaxState& best);

}  // namespace hs
