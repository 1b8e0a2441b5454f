#pragma once
// The shape and variant of one multi-head attention layer.
#include <cmath>
#include <cstdint>
#include <string>
#include <tuple>

#include "core/util/same_fields.h"

namespace hs {

struct AttentionConfig {
  int d_model = 8;
  int n_heads = 2;
  int n_kv_heads = 0;        // key/value heads G; 0 means n_heads (plain multi-head)
  int d_head = 0;            // width of one head; 0 means d_model / n_heads (the usual split)
  bool causal = false;       // query i sees keys j <= i
  int window = -1;           // -1: no window; W >= 0: query i sees keys with |i - j| <= W (j <= i if causal)
  float temperature = 1.0f;  // scores are divided by it before the softmax
  // Pretrained variants (0 = off; every synthetic and nn.MultiheadAttention layer leaves them 0):
  float scale = 0.0f;    // > 0: scores are (q . k) * scale instead of (q . k) / sqrt(d_head) (Gemma's query_pre_attn_scalar^-1/2)
  float softcap = 0.0f;  // > 0: scores = softcap * tanh(scores / softcap) before temperature and mask (Gemma 2)
  bool bias = true;          // biases on Q, K, V and the output projection (as nn.MultiheadAttention)
  // Teaching only: split heads with the classic mistake, viewing the projected [T, H*dh] tensor
  // as [H, T, dh] directly instead of [T, H, dh] then swapping axes. It runs without an error
  // and scrambles tokens into the wrong heads (lesson step 3). Off for every real use.
  bool scrambled_reshape = false;

  // Every field, in order; equality compares them (core/util/same_fields.h: NaN equals NaN). A new
  // field goes here too: tests/core/model/model_request_equality_test.cpp counts the fields and
  // fails to compile until it is.
  auto tie() const {
    return std::tie(d_model, n_heads, n_kv_heads, d_head, causal, window, temperature, scale, softcap, bias,
                    scrambled_reshape);
  }
  bool operator==(const AttentionConfig& o) const { return same_fields(tie(), o.tie()); }
  bool operator!=(const AttentionConfig& o) const { return !(*this == o); }

  int kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  int head_width() const { return d_head > 0 ? d_head : (n_heads > 0 ? d_model / n_heads : 0); }
  // Query heads per key/value head; query head h reads key/value head h / group_size().
  int group_size() const { return n_heads / kv_heads(); }
  bool decoupled_width() const { return d_head > 0 && d_head * n_heads != d_model; }
  // The factor on q . k: `scale` when set, else 1 / sqrt(d_head) (computed in float, as always).
  float score_scale() const { return scale > 0.0f ? scale : 1.0f / std::sqrt(static_cast<float>(head_width())); }

  // Throws InputError with both numbers when the shape is impossible:
  // "heads (3) must divide d_model (8)", "key/value heads (3) must divide heads (8)", ...
  void validate() const;
};

// Learned numbers in one attention layer: Q, K, V, O weights and (if bias) their biases.
// With the default width this is 4 d^2 + 4 d whatever the head count (288 for d_model 8).
int64_t attention_param_count(const AttentionConfig& c);

// Floats a key/value cache keeps per token for this layer: 2 * key/value heads * head width.
int64_t kv_cache_floats_per_token(const AttentionConfig& c);

// Largest d_model / heads / tokens the engine accepts (checked before allocating).
constexpr int kMaxDModel = 16384;
constexpr int kMaxHeads = 1024;
// Temperatures outside this range only overflow or flatten float32 scores (1 / 1e-41 = inf).
constexpr float kMinTemperature = 1e-3f;
constexpr float kMaxTemperature = 1e3f;
// Largest layer, in learned numbers (2 GiB of float32), checked before the weights are allocated.
constexpr int64_t kMaxLayerParams = int64_t(1) << 29;

}  // namespace hs
