#pragma once
// nn.MultiheadAttention's state_dict from a safetensors file: in_proj_weight [3d, d],
// in_proj_bias [3d], out_proj.weight [d, d], out_proj.bias [d], float32. d_model comes from
// the file; the head count is the caller's (it is not stored in a state_dict). A bias=False
// layer (no bias tensors) is read with zero biases and config.bias = false.
#include <string>

#include "core/model/attention_config.h"
#include "core/model/attention_weights.h"

namespace hs {

struct MhaWeightsFile {
  AttentionConfig config;  // d_model from the file, heads etc. from the caller
  AttentionWeights weights;
};

// Throws FormatError naming the file, the tensor and the expected shape; InputError when the
// caller's head count does not divide the file's d_model.
MhaWeightsFile load_mha_weights(const std::string& path, AttentionConfig config);

}  // namespace hs
