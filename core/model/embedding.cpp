#include "core/model/embedding.h"

#include <cmath>

#include "core/model/rng.h"

namespace hs {

Vec token_vector(const std::string& text, int d_model, uint64_t seed) {
  Rng rng(hash_text(text, seed));
  Vec v(d_model);
  for (int i = 0; i < d_model; ++i) v[i] = static_cast<float>(rng.normal());
  return v;
}

Map positional_encoding(int tokens, int d_model) {
  Map pe(tokens, d_model);
  for (int pos = 0; pos < tokens; ++pos) {
    for (int i = 0; i < d_model; ++i) {
      const double freq = std::pow(10000.0, -double(i - i % 2) / double(d_model));
      pe(pos, i) = static_cast<float>(i % 2 == 0 ? std::sin(pos * freq) : std::cos(pos * freq));
    }
  }
  return pe;
}

Map embed_tokens(const std::vector<std::string>& tokens, int d_model, uint64_t seed) {
  const int T = static_cast<int>(tokens.size());
  Map x = positional_encoding(T, d_model);
  for (int t = 0; t < T; ++t) x.row(t) += token_vector(tokens[t], d_model, seed).transpose();
  return x;
}

}  // namespace hs
