#include "core/model/attention_layer.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// Row-wise numerically stable softmax in place: A_ij = exp(S_ij - max_j S_ij) / sum_j exp(...).
// Masked entries are -inf and come out exactly 0. Every row has at least one visible key
// (the query itself), so the max is finite.
void softmax_rows(Map& s) {
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    auto row = s.row(i);
    const float m = row.maxCoeff();
    float sum = 0.0f;
    for (Eigen::Index j = 0; j < row.size(); ++j) {
      const float e = std::exp(row[j] - m);
      row[j] = e;
      sum += e;
    }
    row *= 1.0f / sum;
  }
}

void apply_mask(Map& s, const AttentionConfig& c) {
  if (!c.causal && c.window < 0) return;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const int T = static_cast<int>(s.rows());
  for (int i = 0; i < T; ++i)
    for (int j = 0; j < T; ++j)
      if (!key_visible(c, i, j)) s(i, j) = neg_inf;
}

}  // namespace

int64_t max_map_bytes() {
  if (const char* env = std::getenv("HEADSCOPE_MAX_MAP_BYTES")) {
    const long long v = std::atoll(env);
    if (v > 0) return v;
  }
  return int64_t(8) << 30;
}

void check_map_memory(int64_t tokens, int64_t maps) {
  const double bytes = double(tokens) * double(tokens) * double(maps) * sizeof(float);
  if (bytes > double(max_map_bytes())) {
    std::ostringstream msg;
    msg.precision(3);
    msg << tokens << " tokens x " << maps << " maps of T x T floats need " << bytes / double(1 << 30)
        << " GiB; the limit is " << double(max_map_bytes()) / double(1 << 30)
        << " GiB (shorten the sentence, use fewer heads, or set HEADSCOPE_MAX_MAP_BYTES)";
    throw InputError(msg.str());
  }
}

Map attend_heads(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int layer, Observer* observer,
                 int threads) {
  const int T = static_cast<int>(q.rows());
  const int H = c.n_heads, dh = c.head_width(), group = c.group_size();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  Map concat(T, H * dh);
  parallel_for(H, threads, [&](int h) {
    const int g = h / group;  // key/value head read by query head h
    const Map qh = q.middleCols(h * dh, dh) * scale;          // [T, dh]
    Map s = qh * k.middleCols(g * dh, dh).transpose();          // [T, T]
    if (c.temperature != 1.0f) s *= 1.0f / c.temperature;
    apply_mask(s, c);
    if (observer && observer->wants(TensorKind::scores, layer, h)) observer->on_tensor(TensorKind::scores, layer, h, s);
    softmax_rows(s);  // s now holds A_h
    Map ctx = s * v.middleCols(g * dh, dh);                     // [T, dh]
    if (observer && observer->wants(TensorKind::attention, layer, h))
      observer->on_tensor(TensorKind::attention, layer, h, s);
    if (observer && observer->wants(TensorKind::context, layer, h))
      observer->on_tensor(TensorKind::context, layer, h, ctx);
    concat.middleCols(h * dh, dh) = ctx;
  });
  return concat;
}

Map attention_layer_forward(const Map& x, const AttentionWeights& w, const AttentionConfig& c, int layer,
                            Observer* observer, int threads) {
  const Map q = (x * w.w_q.transpose()).rowwise() + w.b_q.transpose();  // [T, H*dh]
  const Map k = (x * w.w_k.transpose()).rowwise() + w.b_k.transpose();  // [T, G*dh]
  const Map v = (x * w.w_v.transpose()).rowwise() + w.b_v.transpose();  // [T, G*dh]
  const Map concat = attend_heads(q, k, v, c, layer, observer, threads);
  Map out = (concat * w.w_o.transpose()).rowwise() + w.b_o.transpose();  // [T, d_model]
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  return out;
}

}  // namespace hs
