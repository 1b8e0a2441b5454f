#pragma once
// Deterministic embeddings for the synthetic model: the same sentence and seed give the same
// vectors on every machine. A token's vector is drawn from N(0, 1) by a generator keyed on its
// text and the seed (so a repeated word gets the same vector), plus the sinusoidal positional
// encoding of "Attention Is All You Need":
//   PE[pos, 2i] = sin(pos / 10000^(2i/d)),  PE[pos, 2i+1] = cos(pos / 10000^(2i/d)).
#include <cstdint>
#include <string>
#include <vector>

#include "core/util/tensor.h"

namespace hs {

Vec token_vector(const std::string& text, int d_model, uint64_t seed);

Map positional_encoding(int tokens, int d_model);

// x: [T, d_model] = token vectors + positional encoding.
Map embed_tokens(const std::vector<std::string>& tokens, int d_model, uint64_t seed);

}  // namespace hs
