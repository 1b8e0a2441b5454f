#include "core/model/attention_config.h"

#include <cmath>
#include <sstream>

#include "core/util/errors.h"

namespace hs {

void AttentionConfig::validate() const {
  const auto num = [](long long v) { return std::to_string(v); };
  if (d_model <= 0) throw InputError("d_model (" + num(d_model) + ") must be a positive whole number");
  if (d_model > kMaxDModel) throw InputError("d_model (" + num(d_model) + ") exceeds the limit of " + num(kMaxDModel));
  if (n_heads <= 0) throw InputError("heads (" + num(n_heads) + ") must be a positive whole number");
  if (n_heads > kMaxHeads) throw InputError("heads (" + num(n_heads) + ") exceeds the limit of " + num(kMaxHeads));
  if (n_kv_heads < 0) throw InputError("key/value heads (" + num(n_kv_heads) + ") must be positive");
  if (d_head < 0) throw InputError("head width (" + num(d_head) + ") must be positive");
  if (d_head == 0 && d_model % n_heads != 0) {
    throw InputError("heads (" + num(n_heads) + ") must divide d_model (" + num(d_model) + ")");
  }
  if (d_head > kMaxDModel) throw InputError("head width (" + num(d_head) + ") exceeds the limit of " + num(kMaxDModel));
  if (n_kv_heads > 0 && n_heads % n_kv_heads != 0) {
    throw InputError("key/value heads (" + num(n_kv_heads) + ") must divide heads (" + num(n_heads) + ")");
  }
  if (const int64_t params = attention_param_count(*this); params > kMaxLayerParams) {
    throw InputError("the attention layer would hold " + num(params) + " parameters (d_model " + num(d_model) + ", " +
                     num(n_heads) + " heads of width " + num(head_width()) + "); the limit is " + num(kMaxLayerParams));
  }
  if (window < -1) throw InputError("window (" + num(window) + ") must be 0 or more");
  if (!(temperature >= kMinTemperature && temperature <= kMaxTemperature)) {  // also rejects NaN
    std::ostringstream msg;
    msg << "temperature (" << temperature << ") must be between " << kMinTemperature << " and " << kMaxTemperature;
    throw InputError(msg.str());
  }
  if (!(scale >= 0.0f && std::isfinite(scale))) {
    std::ostringstream msg;
    msg << "score scale (" << scale << ") must be a finite number, 0 or more (0: 1/sqrt(head width))";
    throw InputError(msg.str());
  }
  if (!(softcap >= 0.0f && std::isfinite(softcap))) {
    std::ostringstream msg;
    msg << "attention soft-cap (" << softcap << ") must be a finite number, 0 or more (0: none)";
    throw InputError(msg.str());
  }
}

int64_t attention_param_count(const AttentionConfig& c) {
  const int64_t d = c.d_model, q = int64_t(c.n_heads) * c.head_width(), kv = int64_t(c.kv_heads()) * c.head_width();
  const int64_t weights = d * q + 2 * d * kv + q * d;
  const int64_t biases = c.bias ? (q + 2 * kv + d) : 0;
  return weights + biases;
}

int64_t kv_cache_floats_per_token(const AttentionConfig& c) {
  return 2 * int64_t(c.kv_heads()) * c.head_width();
}

}  // namespace hs
