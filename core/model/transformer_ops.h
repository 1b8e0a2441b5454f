#pragma once
// Building blocks shared by the pretrained forward passes (llama2.c, Llama, GPT-2). Every
// activation is row-major [T, width]: one row per token position.
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/rope.h"
#include "core/util/tensor.h"

namespace hs {

// Dense products on the engine's kernels (core/util/kernels.h; Eigen's own product is compiled
// for the x86-64 baseline and ran the GPT-2 forward 3x slower than PyTorch), `threads` splitting
// the output columns. x [T, k] -> [T, n]:
//   matmul(x, w)    = x w    with w [k, n] (GPT-2's Conv1D layout)
//   matmul_wt(x, w) = x w^T  with w [n, k] (nn.Linear's layout: Llama, llama2.c, embeddings)
// A few rows (one token at a time while generating) go to Eigen's matrix-vector product, which
// reads w once instead of packing it first.
Map matmul(const Map& x, const Map& w, int threads = 1);
Map matmul_wt(const Map& x, const Map& w, int threads = 1);

// RMSNorm (Llama): y = x / sqrt(mean(x^2) + eps) * w, row by row. x: [T, d], w: [d].
Map rms_norm(const Map& x, const Vec& w, float eps);

// RMSNorm of every head of m: [T, n_heads * dh] in place, each dh-wide slice of a row normalised
// on its own and multiplied by w: [dh] (Qwen 3 and Gemma 3 normalise q and k per head).
void rms_norm_heads(Map& m, int n_heads, int dh, const Vec& w, float eps);

// LayerNorm (GPT-2): y = (x - mean) / sqrt(var + eps) * w + b, biased variance, row by row.
Map layer_norm(const Map& x, const Vec& w, const Vec& b, float eps);

// Rotary position embedding, in place, on every head of m: [T, n_heads * dh]. Row t is position
// `first_pos + t`; each pair (a, b) of a head rotates by theta = pos * base^(-2i/dh):
//   a' = a cos(theta) - b sin(theta),  b' = a sin(theta) + b cos(theta)
void apply_rope(Map& m, int n_heads, int dh, float base, RopePairs pairs, int first_pos = 0);

// Causal attention of n new queries at positions first_pos .. first_pos+n-1 over all keys so far
// (incremental decoding, no observer): q [n, H*dh], k and v [first_pos+n, G*dh] -> [n, H*dh].
// Query head h reads key/value head h / (H/G); the query at position p sees the keys
// visible_keys(c, p) gives (0..p; p-W..p with a window W); scores as attend_heads computes them
// (c's scale, soft-cap and temperature). `c` must be causal.
Map attend_cached(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int first_pos);

// The maps' rows of the new queries of an incremental run (core/model/prefix_cache.h), per layer
// and head: row i is query first_pos + i over all first_pos + n keys, as the whole run's maps have it.
struct CachedRows {
  bool keep_scores = false;
  std::vector<std::vector<Map>> attention;  // [layer][head] [n, T], masked cells 0, rows sum to 1
  std::vector<std::vector<Map>> scores;     // [layer][head] [n, T], masked cells -inf (keep_scores)
  std::vector<Map> queries;                 // [layer] [n, H*dh] after RoPE (keep_scores)
};

// attend_cached that also writes layer `layer`'s rows into `rows`, with the softmax attend_heads
// uses (kernels.h softmax_rows), so the rows equal the whole run's.
Map attend_cached_rows(const Map& q, const Map& k, const Map& v, const AttentionConfig& c, int first_pos, int layer,
                       CachedRows& rows);

// Appends rows to a cache matrix (keys or values of new positions).
void append_rows(Map& cache, const Map& rows);

// SiLU (swish): x * sigmoid(x).
float silu(float x);

// GELU, tanh approximation (GPT-2's gelu_new): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
float gelu_tanh(float x);

// GELU, exact: 0.5 x (1 + erf(x / sqrt(2))).
float gelu_exact(float x);

// Soft-capping: cap * tanh(x / cap) (Gemma 2's final logits).
float soft_cap(float x, float cap);

// Index of the largest entry of each row (the greedy next token); ties go to the lowest index.
std::vector<int> argmax_rows(const Map& logits);

}  // namespace hs
