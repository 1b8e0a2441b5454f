#include "core/model/attention_layer.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "core/util/errors.h"
#include "core/util/runtime_config.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// Rows processed together when a mask hides part of the map: each block of rows only computes
// the key columns some row in it can see, so a causal map costs about half of a full one.
constexpr int kRowBlock = 128;

bool has_mask(const AttentionConfig& c) { return c.causal || c.window >= 0; }

// Head h's columns in q, k, v and concat (key/value head g = h / group), and its score scale.
struct HeadSlices {
  int dh;
  float scale;  // c.score_scale(): 1 / sqrt(dh) unless the config sets one
  const float *qh, *kg, *vg;
  float* ctx_out;
};
HeadSlices head_slices(const float* q, const float* k, const float* v, const AttentionConfig& c, int h, float* concat) {
  const int dh = c.head_width(), g = h / c.group_size();
  return {dh, c.score_scale(), q + int64_t(h) * dh, k + int64_t(g) * dh, v + int64_t(g) * dh,
          concat + int64_t(h) * dh};
}

// Head h's context ([T, dh], ldc apart in concat) to the observer, if it wants it.
void announce_context(Observer* observer, int layer, int h, const float* ctx_out, int T, int dh, int64_t ldc) {
  if (!observer || !observer->wants(TensorKind::context, layer, h)) return;
  const Map ctx = Eigen::Map<const Map, 0, Eigen::OuterStride<>>(ctx_out, T, dh, Eigen::OuterStride<>(ldc));
  observer->on_tensor(TensorKind::context, layer, h, ctx);
}

// One head h (key/value head g = h / group) into s ([T, T], becomes A_h) and its context, the
// columns [h * dh, (h + 1) * dh) of concat ([T, H * dh], ldc apart). q, k, v are row-major with
// row strides ldq, ldk, ldv; head h's columns start at h * dh (g * dh for k and v).
void attend_one_head(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv, int T,
                     const AttentionConfig& c, int h, int layer, Observer* observer, float* concat, int64_t ldc) {
  const auto [dh, scale, qh, kg, vg, ctx_out] = head_slices(q, k, v, c, h, concat);
  const bool masked = has_mask(c);
  const float neg_inf = -std::numeric_limits<float>::infinity();
  Map s(T, T);  // S_h then A_h: [T, T], row = query i, col = key j

  // S_h = (q_h k_g^T) * scale, soft-capped, then / temperature; masked entries -inf. With a mask,
  // each block of rows computes only the columns [lo, hi] any of its rows can see.
  for (int r0 = 0; r0 < T; r0 += masked ? kRowBlock : T) {
    const int r1 = std::min(T, r0 + (masked ? kRowBlock : T));
    const int lo = visible_keys(c, r0, T).lo, hi = visible_keys(c, r1 - 1, T).hi;
    sgemm(r1 - r0, hi - lo + 1, dh, scale, qh + int64_t(r0) * ldq, ldq, kg + int64_t(lo) * ldk, ldk, true,
          s.data() + int64_t(r0) * T + lo, T);
    finish_scores(s.data() + int64_t(r0) * T, T, r1 - r0, lo, hi, c);
    if (masked) {
      for (int i = r0; i < r1; ++i) {
        const KeyRange r = visible_keys(c, i, T);
        float* row = s.data() + int64_t(i) * T;
        std::fill(row, row + r.lo, neg_inf);
        std::fill(row + r.hi + 1, row + T, neg_inf);
      }
    }
  }
  if (observer && observer->wants(TensorKind::scores, layer, h)) observer->on_tensor(TensorKind::scores, layer, h, s);

  // A_h = softmax(S_h) row by row (masked entries become exactly 0).
  if (!masked) {
    softmax_rows(s.data(), T, T, T);
  } else {
    for (int i = 0; i < T; ++i) {
      const KeyRange r = visible_keys(c, i, T);
      float* row = s.data() + int64_t(i) * T;
      softmax_rows(row + r.lo, 1, r.hi - r.lo + 1, T);
      std::fill(row, row + r.lo, 0.0f);
      std::fill(row + r.hi + 1, row + T, 0.0f);
    }
  }

  // C_h = A_h v_g: [T, dh], written straight into concat; a masked block of rows reads only
  // the keys its rows can see (the rest of A_h is 0 there).
  for (int r0 = 0; r0 < T; r0 += masked ? kRowBlock : T) {
    const int r1 = std::min(T, r0 + (masked ? kRowBlock : T));
    const int lo = visible_keys(c, r0, T).lo, hi = visible_keys(c, r1 - 1, T).hi;
    sgemm(r1 - r0, dh, hi - lo + 1, 1.0f, s.data() + int64_t(r0) * T + lo, T, vg + int64_t(lo) * ldv, ldv, false,
          ctx_out + int64_t(r0) * ldc, ldc);
  }
  announce_context(observer, layer, h, ctx_out, T, dh, ldc);
  // Last use of s: a recorder keeps A_h without copying it.
  if (observer && observer->wants(TensorKind::attention, layer, h))
    observer->take_tensor(TensorKind::attention, layer, h, std::move(s));
}

// Head h as attend_one_head computes it, but a block of rows at a time in a buffer reused across
// blocks and heads, for when nobody wants whole maps (an 8192-token map is 256 MiB). Each block
// of A_h goes to observer->on_rows, if it wants it.
void stream_one_head(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv, int T,
                     const AttentionConfig& c, int h, int layer, Observer* observer, float* concat, int64_t ldc) {
  const auto [dh, scale, qh, kg, vg, ctx_out] = head_slices(q, k, v, c, h, concat);
  const bool rows_wanted = observer && observer->wants_rows(layer, h);
  // Blocks of about 4 Mi floats (16 MiB): few enough that packing k and v once per block stays
  // cheap, small enough to stay in memory the machine already has (unless the observer asks).
  const int asked = observer ? observer->stream_rows() : 0;
  const int block = asked > 0 ? asked
                              : std::clamp(((1 << 22) / std::max(T, 1)) / 16 * 16, kRowBlock, std::max(T, kRowBlock));
  thread_local std::vector<float> buffer, entropy;
  buffer.resize(size_t(block) * size_t(T));
  entropy.resize(size_t(block));
  for (int r0 = 0; r0 < T; r0 += block) {
    const int r1 = std::min(T, r0 + block), n = r1 - r0;
    const int lo = visible_keys(c, r0, T).lo, hi = visible_keys(c, r1 - 1, T).hi;
    float* s = buffer.data();  // [n, T]: S then A for rows r0 .. r1 - 1
    sgemm(n, hi - lo + 1, dh, scale, qh + int64_t(r0) * ldq, ldq, kg + int64_t(lo) * ldk, ldk, true, s + lo, T);
    finish_scores(s, T, n, lo, hi, c);
    for (int i = 0; i < n; ++i) {
      float* row = s + int64_t(i) * T;
      const KeyRange r = visible_keys(c, r0 + i, T);
      softmax_rows(row + r.lo, 1, r.hi - r.lo + 1, T, rows_wanted ? &entropy[size_t(i)] : nullptr);
      std::fill(row, row + r.lo, 0.0f);
      std::fill(row + r.hi + 1, row + T, 0.0f);
    }
    sgemm(n, dh, hi - lo + 1, 1.0f, s + lo, T, vg + int64_t(lo) * ldv, ldv, false, ctx_out + int64_t(r0) * ldc, ldc);
    if (rows_wanted) observer->on_rows(layer, h, r0, n, s, T, T, entropy.data());
  }
  announce_context(observer, layer, h, ctx_out, T, dh, ldc);
}

// True when head h can stream: nobody wants a whole [T, T] map of it.
bool can_stream(const Observer* observer, int layer, int h) {
  return !observer || (!observer->wants(TensorKind::scores, layer, h) && !observer->wants(TensorKind::attention, layer, h));
}

// Announces q or k ([T, n], ld apart) as one owned tensor, if wanted.
void announce_projection(Observer* observer, TensorKind kind, int layer, const float* m, int T, int n, int64_t ld) {
  if (!observer || !observer->wants(kind, layer, -1)) return;
  observer->take_tensor(kind, layer, -1, Map(Eigen::Map<const Map, 0, Eigen::OuterStride<>>(m, T, n, Eigen::OuterStride<>(ld))));
}

// Every head, in parallel: concat [T, H * dh] (ldc apart) gets each head's context.
void attend_all_heads(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv, int T,
                      const AttentionConfig& c, int layer, Observer* observer, int threads, float* concat,
                      int64_t ldc) {
  announce_projection(observer, TensorKind::queries, layer, q, T, c.n_heads * c.head_width(), ldq);
  announce_projection(observer, TensorKind::keys, layer, k, T, c.kv_heads() * c.head_width(), ldk);
  announce_projection(observer, TensorKind::values, layer, v, T, c.kv_heads() * c.head_width(), ldv);
  // Scores and context of every head: 2 T^2 dh multiply-adds each (stories260K's stay on one thread).
  threads = threads_for_work(threads, 2 * int64_t(T) * T * c.head_width() * c.n_heads);
  parallel_for(c.n_heads, threads, [&](int h) {
    if (can_stream(observer, layer, h)) stream_one_head(q, ldq, k, ldk, v, ldv, T, c, h, layer, observer, concat, ldc);
    else attend_one_head(q, ldq, k, ldk, v, ldv, T, c, h, layer, observer, concat, ldc);
  });
}

// y = x W^T + b for the rows of x: y [T, n] (ldy apart), W [n, d], b [n]. The bias is written
// first and the product added onto it.
void linear(const Map& x, const Map& w, const Vec& b, float* y, int64_t ldy, int threads) {
  const int T = static_cast<int>(x.rows()), n = static_cast<int>(w.rows());
  for (int i = 0; i < T; ++i) std::copy(b.data(), b.data() + n, y + int64_t(i) * ldy);
  sgemm(T, n, static_cast<int>(x.cols()), 1.0f, x.data(), x.cols(), w.data(), w.cols(), true, y, ldy, true, threads);
}

}  // namespace

void finish_scores(float* s, int64_t ld, int rows, int lo, int hi, const AttentionConfig& c) {
  // Soft-capping (Gemma 2): cap * tanh(s / cap) keeps every score inside (-cap, cap) and leaves
  // small ones almost unchanged, so it flattens only the sharpest heads.
  if (c.softcap > 0.0f) {
    const float cap = c.softcap;
    for (int i = 0; i < rows; ++i) {
      float* row = s + int64_t(i) * ld;
      for (int j = lo; j <= hi; ++j) row[j] = cap * std::tanh(row[j] / cap);
    }
  }
  if (c.temperature != 1.0f) {
    const float inv_t = 1.0f / c.temperature;
    for (int i = 0; i < rows; ++i) {
      float* row = s + int64_t(i) * ld;
      for (int j = lo; j <= hi; ++j) row[j] *= inv_t;
    }
  }
}

int64_t max_map_bytes() {
  if (const int64_t set = runtime_config().max_map_bytes; set > 0) return set;
  // 8 GiB, or half the machine's memory when it has less than 16 GiB.
  int64_t limit = int64_t(8) << 30;
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) limit = std::min(limit, int64_t(pages) * int64_t(page) / 2);
  return limit;
}

namespace {

std::string byte_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) { bytes /= 1024.0; ++u; }
  std::ostringstream s;
  s.precision(3);
  s << bytes << ' ' << units[u];
  return s.str();
}

}  // namespace

void check_map_memory(int64_t tokens, int64_t maps) {
  const double bytes = double(tokens) * double(tokens) * double(maps) * sizeof(float);
  if (bytes > double(max_map_bytes())) {
    throw InputError(std::to_string(tokens) + " tokens x " + std::to_string(maps) + " maps of T x T floats need " +
                     byte_text(bytes) + "; the limit is " + byte_text(double(max_map_bytes())) +
                     " (shorten the sentence, use fewer heads, or set HEADSCOPE_MAX_MAP_BYTES)");
  }
}

Map attend_heads(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int layer, Observer* observer,
                 int threads) {
  const int T = static_cast<int>(q.rows());
  Map concat(T, c.n_heads * c.head_width());  // [T, H*dh]
  attend_all_heads(q.data(), q.cols(), k.data(), k.cols(), v.data(), v.cols(), T, c, layer, observer, threads,
                   concat.data(), concat.cols());
  return concat;
}

// The classic head-split mistake on one projection m: [T, n] with n = heads * dh.
// Right: m.view(T, heads, dh).transpose(0, 1) -> head h, token t reads m[t, h*dh : (h+1)*dh].
// Wrong: m.view(heads, T, dh) -> head h, token t reads the flat slice [(h*T + t)*dh, +dh), i.e.
// part of token (h*T + t) / heads. Returned in the right layout so attend_heads can run on it:
// out[t, h*dh + j] = m.flat[(h*T + t)*dh + j].   // out: [T, n]
Map scramble_heads(const Map& m, int dh) {
  const int T = static_cast<int>(m.rows()), heads = static_cast<int>(m.cols()) / dh;
  Map out(m.rows(), m.cols());
  const float* flat = m.data();
  for (int h = 0; h < heads; ++h)
    for (int t = 0; t < T; ++t)
      for (int j = 0; j < dh; ++j) out(t, h * dh + j) = flat[(int64_t(h) * T + t) * dh + j];
  return out;
}

namespace {

// The layer with the scrambled split; the contexts are put back the right way, as the buggy
// code usually does (transpose(1, 2).reshape(T, d) on the way out).
Map scrambled_layer_forward(const Map& x, const AttentionWeights& w, const AttentionConfig& c, int layer,
                            Observer* observer, int threads) {
  const int dh = c.head_width();
  const Map q = scramble_heads((x * w.w_q.transpose()).rowwise() + w.b_q.transpose(), dh);  // [T, H*dh]
  const Map k = scramble_heads((x * w.w_k.transpose()).rowwise() + w.b_k.transpose(), dh);  // [T, G*dh]
  const Map v = scramble_heads((x * w.w_v.transpose()).rowwise() + w.b_v.transpose(), dh);  // [T, G*dh]
  const Map concat = attend_heads(q, k, v, c, layer, observer, threads);                     // [T, H*dh]
  Map out = (concat * w.w_o.transpose()).rowwise() + w.b_o.transpose();                     // [T, d_model]
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  return out;
}

}  // namespace

Map attention_layer_forward(const Map& x, const AttentionWeights& w, const AttentionConfig& c, int layer,
                            Observer* observer, int threads) {
  if (c.scrambled_reshape) return scrambled_layer_forward(x, w, c, layer, observer, threads);
  const int T = static_cast<int>(x.rows());
  const int nq = static_cast<int>(w.w_q.rows()), nkv = static_cast<int>(w.w_k.rows());
  // qkv: [T, H*dh + 2*G*dh] = [q | k | v], each x W^T + b, side by side so no copies are made.
  Map qkv(T, nq + 2 * nkv);
  float* q = qkv.data();
  float* k = q + nq;
  float* v = k + nkv;
  const int64_t ld = qkv.cols();
  linear(x, w.w_q, w.b_q, q, ld, threads);
  linear(x, w.w_k, w.b_k, k, ld, threads);
  linear(x, w.w_v, w.b_v, v, ld, threads);
  Map concat(T, nq);  // [T, H*dh]: the heads' contexts side by side
  attend_all_heads(q, ld, k, ld, v, ld, T, c, layer, observer, threads, concat.data(), concat.cols());
  Map out(T, w.w_o.rows());  // [T, d_model] = concat Wo^T + bo
  linear(concat, w.w_o, w.b_o, out.data(), out.cols(), threads);
  if (observer && observer->wants(TensorKind::output, layer, -1)) observer->on_tensor(TensorKind::output, layer, -1, out);
  return out;
}

}  // namespace hs
