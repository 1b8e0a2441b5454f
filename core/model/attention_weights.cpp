#include "core/model/attention_weights.h"

#include <cassert>
#include <cmath>

#include "core/model/rng.h"

namespace hs {

AttentionWeights init_attention_weights(const AttentionConfig& c, uint64_t seed) {
  const int d = c.d_model, dh = c.head_width();
  const int q_rows = c.n_heads * dh, kv_rows = c.kv_heads() * dh;
  Rng rng(hash_text("attention-weights", seed));
  const double a_in = std::sqrt(6.0 / (double(d) + double(q_rows + 2 * kv_rows)));
  auto uniform_map = [&](int rows, int cols, double bound) {
    Map m(rows, cols);
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) m(i, j) = static_cast<float>(rng.uniform(-bound, bound));
    return m;
  };
  AttentionWeights w;
  w.w_q = uniform_map(q_rows, d, a_in);
  w.w_k = uniform_map(kv_rows, d, a_in);
  w.w_v = uniform_map(kv_rows, d, a_in);
  w.w_o = uniform_map(d, q_rows, 1.0 / std::sqrt(double(q_rows)));
  w.b_q = Vec::Zero(q_rows);
  w.b_k = Vec::Zero(kv_rows);
  w.b_v = Vec::Zero(kv_rows);
  w.b_o = Vec::Zero(d);
  return w;
}

AttentionWeights unpack_attention_weights(const Map& in_w, const Vec& in_b, const Map& out_w, const Vec& out_b,
                                          const AttentionConfig& c) {
  const int d = c.d_model;
  assert(in_w.rows() == 3 * d && in_w.cols() == d && "in_proj_weight must be [3d, d]");
  AttentionWeights w;
  w.w_q = in_w.topRows(d);
  w.w_k = in_w.middleRows(d, d);
  w.w_v = in_w.bottomRows(d);
  w.b_q = in_b.head(d);
  w.b_k = in_b.segment(d, d);
  w.b_v = in_b.tail(d);
  w.w_o = out_w;
  w.b_o = out_b;
  return w;
}

}  // namespace hs
