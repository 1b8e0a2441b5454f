#pragma once
// Numbers that compare heads: how different two maps are, how spread out a head's attention is,
// the head-averaged map libraries return by default.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// diff[a][b] = mean over all T*T cells of |A_a - A_b|. [H, H], symmetric, zero diagonal.
Map head_difference(const LayerMaps& heads);

// The map torch returns with average_attn_weights=True: mean over heads. [T, T], rows sum to 1.
Map head_average(const LayerMaps& heads);

// Entropy of each query's row, in nats: H_i = -sum_j A_ij log A_ij (0 log 0 = 0). [T]
Vec row_entropy(const Map& attention);

// Mean row entropy of one head.
float mean_entropy(const Map& attention);

// |A_a - A_b| cell by cell (for the side-by-side difference view). [T, T]
Map abs_difference(const Map& a, const Map& b);

}  // namespace hs
