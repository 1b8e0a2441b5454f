#include "core/model/mha_weights_file.h"

#include <cmath>

#include "core/io/safetensors.h"
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
  for (const char* name : {"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}) {
    if (file.info(name).dtype != DType::F32) {
      throw FormatError(path + ": tensor '" + name + "' has dtype " + dtype_name(file.info(name).dtype) + "; expected F32");
    }
  }
  config.d_model = static_cast<int>(d);
  config.d_head = 0;
  config.n_kv_heads = 0;
  config.validate();
  MhaWeightsFile out;
  out.config = config;
  const Map w_in = file.matrix("in_proj_weight", 3 * d, d);
  const Vec b_in = file.vector("in_proj_bias", 3 * d);
  const Map w_out = file.matrix("out_proj.weight", d, d);
  const Vec b_out = file.vector("out_proj.bias", d);
  for (const auto* m : {&w_in, &w_out})
    if (!m->allFinite()) throw FormatError(path + ": a weight is NaN or infinite");
  if (!b_in.allFinite() || !b_out.allFinite()) throw FormatError(path + ": a bias is NaN or infinite");
  out.weights = unpack_attention_weights(w_in, b_in, w_out, b_out, config);
  return out;
}

}  // namespace hs
