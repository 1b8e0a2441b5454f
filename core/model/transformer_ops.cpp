#include "core/model/transformer_ops.h"

#include <cassert>
#include <cmath>
#include <limits>

#include "core/model/attention_layer.h"
#include "core/util/kernels.h"

namespace hs {
namespace {

// Below this many rows a product is a few matrix-vector products (live typing's one new token):
// not worth packing w for; the few-rows kernel reads w once instead.
constexpr Eigen::Index kPackedMinRows = 8;
static_assert(kPackedMinRows <= kFewRowsMax, "a few-rows product reads w once per kFewRowsMax rows");

// x w, or x w^T with `w_transposed`, on the packed kernels (few rows: the few-rows kernel).
Map packed_product(const Map& x, const Map& w, bool w_transposed, int threads) {
  Map y(x.rows(), w_transposed ? w.rows() : w.cols());
  if (x.rows() < kPackedMinRows)
    sgemm_few_rows(int(y.rows()), int(y.cols()), int(x.cols()), x.data(), x.cols(), w.data(), w.cols(), w_transposed,
                   y.data(), y.cols());
  else
    sgemm(int(y.rows()), int(y.cols()), int(x.cols()), 1.0f, x.data(), x.cols(), w.data(), w.cols(), w_transposed,
          y.data(), y.cols(), false, threads);
  return y;
}

}  // namespace

Map matmul(const Map& x, const Map& w, int threads) {
  assert(x.cols() == w.rows() && "matmul: x [T, k] times w [k, n]");
  return packed_product(x, w, false, threads);
}

Map matmul_wt(const Map& x, const Map& w, int threads) {
  assert(x.cols() == w.cols() && "matmul_wt: x [T, k] times w^T, w [n, k]");
  return packed_product(x, w, true, threads);
}

Map rms_norm(const Map& x, const Vec& w, float eps) {
  assert(x.cols() == w.size() && "rms_norm: weight width must match the activations");
  Map y(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float ms = x.row(t).squaredNorm() / static_cast<float>(x.cols());
    const float inv = 1.0f / std::sqrt(ms + eps);
    y.row(t) = (x.row(t) * inv).cwiseProduct(w.transpose());
  }
  return y;
}

void rms_norm_heads(Map& m, int n_heads, int dh, const Vec& w, float eps) {
  assert(m.cols() == Eigen::Index(n_heads) * dh && w.size() == dh && "rms_norm_heads: [T, heads * dh], w [dh]");
  for (Eigen::Index t = 0; t < m.rows(); ++t)
    for (int h = 0; h < n_heads; ++h) {
      auto head = m.row(t).segment(Eigen::Index(h) * dh, dh);
      const float ms = head.squaredNorm() / static_cast<float>(dh);
      const float inv = 1.0f / std::sqrt(ms + eps);
      head = (head * inv).cwiseProduct(w.transpose());
    }
}

Map layer_norm(const Map& x, const Vec& w, const Vec& b, float eps) {
  assert(x.cols() == w.size() && x.cols() == b.size() && "layer_norm: weight width must match the activations");
  Map y(x.rows(), x.cols());
  for (Eigen::Index t = 0; t < x.rows(); ++t) {
    const float mean = x.row(t).mean();
    const auto centred = x.row(t).array() - mean;
    const float var = centred.square().mean();
    const float inv = 1.0f / std::sqrt(var + eps);
    y.row(t) = ((centred * inv) * w.transpose().array() + b.transpose().array()).matrix();
  }
  return y;
}

void apply_rope(Map& m, int n_heads, int dh, float base, RopePairs pairs, int first_pos) {
  assert(m.cols() == Eigen::Index(n_heads) * dh && dh % 2 == 0 && "apply_rope: [T, heads * even dh]");
  const int half = dh / 2;
  std::vector<float> inv_freq(static_cast<size_t>(half));
  for (int i = 0; i < half; ++i) inv_freq[size_t(i)] = 1.0f / std::pow(base, float(2 * i) / float(dh));
  for (Eigen::Index t = 0; t < m.rows(); ++t) {
    const float pos = static_cast<float>(first_pos + t);
    float* row = m.row(t).data();
    for (int i = 0; i < half; ++i) {
      const float theta = pos * inv_freq[size_t(i)];
      const float c = std::cos(theta), s = std::sin(theta);
      const int ia = pairs == RopePairs::adjacent ? 2 * i : i;
      const int ib = pairs == RopePairs::adjacent ? 2 * i + 1 : i + half;
      for (int h = 0; h < n_heads; ++h) {
        float& a = row[h * dh + ia];
        float& b = row[h * dh + ib];
        const float a0 = a, b0 = b;
        a = a0 * c - b0 * s;
        b = a0 * s + b0 * c;
      }
    }
  }
}

Map attend_cached(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int first_pos) {
  assert(c.causal && "cached decoding is causal");
  const int n = static_cast<int>(q.rows()), dh = c.head_width(), group = c.group_size();
  const int T = first_pos + n;
  const float scale = c.score_scale();
  Map out(n, Eigen::Index(c.n_heads) * dh);
  for (int h = 0; h < c.n_heads; ++h) {
    const int g = h / group;
    for (int i = 0; i < n; ++i) {
      const KeyRange r = visible_keys(c, first_pos + i, T);  // keys r.lo .. first_pos + i
      const int visible = r.hi - r.lo + 1;
      // s: [1, visible], query i's scores over keys r.lo .. first_pos + i, then its attention row.
      Eigen::RowVectorXf s = (q.block(i, h * dh, 1, dh) * scale) * k.block(r.lo, g * dh, visible, dh).transpose();
      finish_scores(s.data(), visible, 1, 0, visible - 1, c);
      s = (s.array() - s.maxCoeff()).exp().matrix();
      s /= s.sum();
      out.block(i, h * dh, 1, dh) = s * v.block(r.lo, g * dh, visible, dh);
    }
  }
  return out;
}

Map attend_cached_rows(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int first_pos, int layer,
                       CachedRows& rows) {
  assert(c.causal && "cached decoding is causal");
  const int n = static_cast<int>(q.rows()), dh = c.head_width(), group = c.group_size();
  const int T = first_pos + n;
  const float scale = c.score_scale();
  const float neg_inf = -std::numeric_limits<float>::infinity();
  if (rows.attention.size() <= size_t(layer)) rows.attention.resize(size_t(layer) + 1);
  std::vector<Map>& att = rows.attention[size_t(layer)];
  att.assign(size_t(c.n_heads), Map::Zero(n, T));
  if (rows.keep_scores) {
    if (rows.scores.size() <= size_t(layer)) rows.scores.resize(size_t(layer) + 1), rows.queries.resize(size_t(layer) + 1);
    rows.scores[size_t(layer)].assign(size_t(c.n_heads), Map::Constant(n, T, neg_inf));
    rows.queries[size_t(layer)] = q;
  }
  Map out(n, Eigen::Index(c.n_heads) * dh);
  for (int h = 0; h < c.n_heads; ++h) {
    const int g = h / group;
    Map& a = att[size_t(h)];  // [n, T]
    for (int i = 0; i < n; ++i) {
      const KeyRange r = visible_keys(c, first_pos + i, T);  // keys r.lo .. first_pos + i
      const int visible = r.hi - r.lo + 1;
      // Row i's scores over the visible keys, as attend_one_head scales and finishes them.
      float* row = a.row(i).data();
      Eigen::Map<Eigen::RowVectorXf> s(row + r.lo, visible);
      s.noalias() = (q.block(i, h * dh, 1, dh) * scale) * k.block(r.lo, g * dh, visible, dh).transpose();
      finish_scores(row + r.lo, T, 1, 0, visible - 1, c);
      if (rows.keep_scores) rows.scores[size_t(layer)][size_t(h)].row(i).segment(r.lo, visible) = s;
      softmax_rows(row + r.lo, 1, visible, T);
      out.block(i, h * dh, 1, dh) = s * v.block(r.lo, g * dh, visible, dh);
    }
  }
  return out;
}

void append_rows(Map& cache, const Map& rows) {
  const Eigen::Index old = cache.rows();
  cache.conservativeResize(old + rows.rows(), rows.cols());
  cache.bottomRows(rows.rows()) = rows;
}

float silu(float x) { return x / (1.0f + std::exp(-x)); }

float gelu_tanh(float x) {
  const float k = 0.7978845608028654f;  // sqrt(2 / pi)
  return 0.5f * x * (1.0f + std::tanh(k * (x + 0.044715f * x * x * x)));
}

float gelu_exact(float x) { return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f)); }

float soft_cap(float x, float cap) { return cap * std::tanh(x / cap); }

std::vector<int> argmax_rows(const Map& logits) {
  std::vector<int> out(static_cast<size_t>(logits.rows()));
  for (Eigen::Index t = 0; t < logits.rows(); ++t) {
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < logits.cols(); ++j)
      if (logits(t, j) > logits(t, best)) best = j;
    out[size_t(t)] = static_cast<int>(best);
  }
  return out;
}

}  // namespace hs
