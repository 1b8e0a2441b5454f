#pragma once
// Singular values of a head's score matrix. S_h = q_h k_g^T / sqrt(d_head) is a product of two
// [T, d_head] matrices, so rank(S_h) <= d_head: that, not "all narrow heads look alike", is the
// real limit a narrow head lives under. Masked (-inf) entries are set to 0 before the SVD.
#include "core/util/tensor.h"

namespace hs {

// Head h's score matrix before any mask, S_h = q_h k_g^T / sqrt(d_head) (g = h / (H / G)):
// queries [T, H*dh], keys [T, G*dh] as a layer used them. [T, T]
Map unmasked_scores(const Map& queries, const Map& keys, int head, int n_heads, int n_kv_heads, int d_head);

// Singular values, largest first. [min(T, T)]
Vec singular_values(const Map& scores);

// Numerical rank: singular values above max(T) * eps(float) * s_max (as numpy.linalg.matrix_rank).
int numerical_rank(const Vec& singular_values, int size);

// Roy & Vetterli's effective rank exp(H(p)), p_i = s_i / sum s: a smooth "how many directions".
float effective_rank(const Vec& singular_values);

}  // namespace hs
