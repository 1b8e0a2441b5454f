#pragma once
// Which keys a head can ever pick. Query i's top key is argmax_j q_i . k_j, so key j can be the
// top key of some query exactly when no other key beats it in every direction: when k_j is a
// vertex of the convex hull of the head's distinct key vectors in R^d_head. (Adding one vector to
// every key adds the same number to a row's scores and changes nothing; identical key vectors are
// one point, and each copy of a vertex is listed: it ties for the top.) A head of width 1 reaches
// 2 keys (the smallest and the largest k), one of width 2 the corners of a polygon, and from
// d_head >= T - 1 every distinct key of keys in general position; a key inside the others' hull
// never wins at any width.
//
// Exact, not sampled: a certificate (a query that puts key j ahead of every other) or a linear
// program (the L1 distance from k_j to the hull of the others, by a dense simplex) decides each key.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// Keys closer than this share of the keys' L1 radius (max_i ||k_i - mean||_1) are the same point,
// and a key must lie farther than this from the others' hull to count as a vertex (float32 keys
// carry rounding of about 1e-7 of their size).
constexpr double kReachTolerance = 1e-6;

// The sorted indices of the keys that some query can make the top key. keys: [T, d_head], one
// head's key vectors as the scores used them (after RoPE).
std::vector<int> reachable_keys(const Map& keys);

// L1 distance from `point` to the convex hull of the rows of `others` ([n, d], n >= 1), by the
// simplex method (Bland's rule after the first degenerate pivot, so it ends). Inputs in double.
double hull_distance_l1(const Eigen::MatrixXd& others, const Eigen::VectorXd& point);

}  // namespace hs
