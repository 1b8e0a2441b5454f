#pragma once
// Numbers that compare heads: how different two maps are, how spread out a head's attention is,
// the head-averaged map libraries return by default.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// diff[a][b] = mean over all T*T cells of |A_a - A_b|. [H, H], symmetric, zero diagonal.
// The lesson's number; it shrinks like 1/T because each row sums to 1.
Map head_difference(const LayerMaps& heads);

// dist[a][b] = mean over query rows q of the total variation distance between the two heads'
// rows, 0.5 * sum_k |A_a(q, k) - A_b(q, k)|: in [0, 1] at any length (0: the same distribution,
// 1: disjoint keys). [H, H], symmetric, zero diagonal. Equals head_difference * T / 2.
Map head_distance(const LayerMaps& heads);

// The same over a subset of query rows: rows[h] is [R, T], row r of head h for the r-th sampled
// query (long inputs: exact rows of a few queries instead of whole maps).
Map head_distance_of_rows(const LayerMaps& rows);

// The map torch returns with average_attn_weights=True: mean over heads. [T, T], rows sum to 1.
Map head_average(const LayerMaps& heads);

// Entropy of each query's row, in nats: H_i = -sum_j A_ij log A_ij (0 log 0 = 0). [T]
Vec row_entropy(const Map& attention);
// Row i's entropy, -sum_k A(i, k) log A(i, k) in double (0 log 0 = 0): what row_entropy rounds to float.
double row_entropy_at(const Map& attention, Eigen::Index i);

// Mean row entropy of one head.
float mean_entropy(const Map& attention);

// |A_a - A_b| cell by cell (for the side-by-side difference view). [T, T]
Map abs_difference(const Map& a, const Map& b);

}  // namespace hs
