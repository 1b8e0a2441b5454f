#include "core/model/mha_weights_file.h"

#include <cmath>
#include <vector>

#include "core/formats/safetensors.h"
#include "core/util/errors.h"

namespace hs {

MhaWeightsFile load_mha_weights(const std::string& path, AttentionConfig config) {
  SafetensorsFile file(path);
  const TensorInfo& in_w = file.info("in_proj_weight");
  if (in_w.shape.size() != 2 || in_w.shape[1] <= 0 || in_w.shape[0] != 3 * in_w.shape[1]) {
    throw FormatError(path + ": tensor 'in_proj_weight' has shape " + in_w.shape_text() + "; expected [3d, d]");
  }
  const int64_t d = in_w.shape[1];
  if (d > kMaxDModel) throw FormatError(path + ": d_model " + std::to_string(d) + " exceeds the limit of " + std::to_string(kMaxDModel));
  for (const char* name : {"bias_k", "bias_v", "q_proj_weight", "k_proj_weight", "v_proj_weight"}) {
    if (file.has(name)) {
      throw FormatError(path + ": tensor '" + name + "' belongs to an nn.MultiheadAttention variant headscope does not run "
                        "(add_bias_kv or kdim/vdim != embed_dim); expected in_proj_weight, in_proj_bias, out_proj.weight, out_proj.bias");
    }
  }
  // bias=False layers have neither bias tensor; a file with only one of them is broken.
  const bool bias = file.has("in_proj_bias") || file.has("out_proj.bias");
  std::vector<const char*> names = {"in_proj_weight", "out_proj.weight"};
  if (bias) names.insert(names.end(), {"in_proj_bias", "out_proj.bias"});
  for (const char* name : names) {
    if (file.info(name).dtype != DType::F32) {
      throw FormatError(path + ": tensor '" + name + "' has dtype " + dtype_name(file.info(name).dtype) + "; expected F32");
    }
  }
  // A state_dict holds plain multi-head attention: one key/value head per query head, width d / H.
  if (config.n_kv_heads > 0 && config.n_kv_heads != config.n_heads) {
    throw InputError(path + ": an nn.MultiheadAttention state_dict has one key/value head per query head; key/value heads (" +
                     std::to_string(config.n_kv_heads) + ") do not apply");
  }
  if (config.d_head > 0 && int64_t(config.d_head) * config.n_heads != d) {
    throw InputError(path + ": an nn.MultiheadAttention state_dict splits d_model (" + std::to_string(d) +
                     ") evenly over the heads; head width (" + std::to_string(config.d_head) + ") does not apply");
  }
  config.d_model = static_cast<int>(d);
  config.d_head = 0;
  config.n_kv_heads = 0;
  config.bias = bias;
  config.validate();
  MhaWeightsFile out;
  out.config = config;
  const Map w_in = file.matrix("in_proj_weight", 3 * d, d);
  const Map w_out = file.matrix("out_proj.weight", d, d);
  const Vec b_in = bias ? file.vector("in_proj_bias", 3 * d) : Vec::Zero(3 * d);
  const Vec b_out = bias ? file.vector("out_proj.bias", d) : Vec::Zero(d);
  // (SafetensorsFile refuses a NaN or infinity, naming the tensor and the element.)
  out.weights = unpack_attention_weights(w_in, b_in, w_out, b_out, config);
  return out;
}

}  // namespace hs
