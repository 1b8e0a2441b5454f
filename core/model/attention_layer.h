#pragma once
// One multi-head attention layer, computed exactly as torch's nn.MultiheadAttention:
//   q = x Wq^T + bq, k = x Wk^T + bk, v = x Wv^T + bv
//   for each head h (key/value head g = h / (H / G)):
//     S_h = (q_h / sqrt(d_head)) k_g^T / temperature, masked entries = -inf
//     (pretrained variants: an explicit score scale instead of 1 / sqrt(d_head), and a soft-cap
//      S = cap * tanh(S / cap) before temperature and mask; see AttentionConfig)
//     A_h = softmax(S_h) row by row            // [T, T], rows sum to 1
//     C_h = A_h v_g                            // [T, d_head]
//   out = concat_h(C_h) Wo^T + bo              // [T, d_model]
// Every S_h, A_h, C_h and out is announced to the observer.
#include <algorithm>
#include <cstdint>

#include "core/model/attention_config.h"
#include "core/model/attention_weights.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// The per-head part shared by every architecture (synthetic, nn.MultiheadAttention, GPT-2,
// Llama after RoPE): q [T, H*dh], k and v [T, G*dh] -> concatenated contexts [T, H*dh].
// Announces scores, attention and context of each head (as the observer wants) for `layer`.
Map attend_heads(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int layer, Observer* observer,
                 int threads);

// The classic head-split mistake on one projection m [T, heads*dh] (view(heads, T, dh) instead of
// view(T, heads, dh).transpose(0, 1)), returned in the right layout for attend_heads: head h of
// token t reads the flat slice [(h*T + t)*dh, +dh). Used by the synthetic layer's and the teaching
// model's "scrambled reshape" (lesson 1 step 3).
Map scramble_heads(const Map& m, int dh);

// The whole layer: projections, attend_heads, out-projection. x: [T, d_model].
Map attention_layer_forward(const Map& x, const AttentionWeights& w, const AttentionConfig& c, int layer,
                            Observer* observer, int threads);

// The score steps after q_h k_g^T * scale, in place on rows [0, rows) of s (ld apart), columns
// [lo, hi] of each: the soft-cap s = cap * tanh(s / cap) when c.softcap > 0, then s / temperature.
// Shared by every path that computes scores (whole maps, streamed rows, exact rows, cached decoding).
void finish_scores(float* s, int64_t ld, int rows, int lo, int hi, const AttentionConfig& c);

// Keys query i may see form one interval [lo, hi] (see key_visible): causal cuts at i,
// a window at i - W and i + W. Computed in 64 bits: W may be anything up to INT_MAX (a window
// wider than the sentence is no window), and i + W must not wrap.
struct KeyRange {
  int lo, hi;
};
inline KeyRange visible_keys(const AttentionConfig& c, int i, int T) {
  int64_t lo = 0, hi = int64_t(T) - 1;
  if (c.causal) hi = i;
  if (c.window >= 0) {
    lo = std::max<int64_t>(0, int64_t(i) - c.window);
    hi = std::min<int64_t>(hi, int64_t(i) + c.window);
  }
  return {static_cast<int>(lo), static_cast<int>(hi)};
}

// True when query i may see key j under the config's causal mask and window.
inline bool key_visible(const AttentionConfig& c, int i, int j) {
  if (c.causal && j > i) return false;
  const int64_t distance = int64_t(i) - int64_t(j);
  if (c.window >= 0 && (distance > c.window || -distance > c.window)) return false;
  return true;
}

// Throws InputError when T tokens with `maps` T x T float maps would exceed the memory limit
// (checked before anything is allocated): "2000000 tokens x 12 heads needs 1.7e+05 GiB ...".
void check_map_memory(int64_t tokens, int64_t maps);

// Bytes the engine allows for T x T maps: 8 GiB, at most half the machine's memory, unless the
// runtime configuration sets another limit (core/util/runtime_config.h; headscope and
// headscope-cli pass HEADSCOPE_MAX_MAP_BYTES on).
int64_t max_map_bytes();

}  // namespace hs
