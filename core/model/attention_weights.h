#pragma once
// The learned numbers of one multi-head attention layer, stored as nn.MultiheadAttention
// stores them but unpacked: y = x W^T + b with W's rows the output features.
#include <cstdint>

#include "core/model/attention_config.h"
#include "core/util/tensor.h"

namespace hs {

struct AttentionWeights {
  Map w_q;  // [H * d_head, d_model]
  Map w_k;  // [G * d_head, d_model]
  Map w_v;  // [G * d_head, d_model]
  Vec b_q;  // [H * d_head]   (zeros when the layer has no bias)
  Vec b_k;  // [G * d_head]
  Vec b_v;  // [G * d_head]
  Map w_o;  // [d_model, H * d_head]
  Vec b_o;  // [d_model]
};

// Initialised the way torch initialises nn.MultiheadAttention, with our own seeded RNG:
// in_proj_weight (Q, K, V packed) ~ xavier_uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out))
// over the packed [H*dh + 2*G*dh, d] matrix; out_proj.weight ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in))
// (kaiming_uniform with a = sqrt(5)); all biases 0.
AttentionWeights init_attention_weights(const AttentionConfig& c, uint64_t seed);

// From PyTorch's packed state_dict tensors: in_proj_weight [3d, d], in_proj_bias [3d],
// out_proj.weight [d, d], out_proj.bias [d]. Shapes are validated by the caller.
AttentionWeights unpack_attention_weights(const Map& in_proj_weight, const Vec& in_proj_bias, const Map& out_weight,
                                          const Vec& out_bias, const AttentionConfig& c);

}  // namespace hs
