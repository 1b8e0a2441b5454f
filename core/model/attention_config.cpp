#include "core/model/attention_config.h"

#include <cmath>
#include <sstream>

#include "core/util/errors.h"
#include "core/util/memory.h"

namespace hs {

void AttentionConfig::validate() const {
  const auto num = [](long long v) { return std::to_string(v); };
  const auto range = [&](const char* what, long long v, long long lo, long long hi) {
    return InputError(std::string(what) + " (" + num(v) + ") must be a whole number from " + num(lo) + " to " + num(hi) +
                      (v > hi ? " (over the limit)" : ""));
  };
  if (d_model <= 0 || d_model > kMaxDModel) throw range("d_model", d_model, 1, kMaxDModel);
  if (n_heads <= 0 || n_heads > kMaxHeads) throw range("heads", n_heads, 1, kMaxHeads);
  if (n_kv_heads < 0 || n_kv_heads > kMaxHeads) {
    throw InputError("key/value heads (" + num(n_kv_heads) + ") must be from 1 to " + num(kMaxHeads) +
                     " (0: as many as heads)");
  }
  if (d_head < 0 || d_head > kMaxDModel) {
    throw InputError("head width (" + num(d_head) + ") must be from 1 to " + num(kMaxDModel) + " (0: d_model / heads)" +
                     (d_head > kMaxDModel ? " (over the limit)" : ""));
  }
  if (d_head == 0 && d_model % n_heads != 0) {
    throw InputError("heads (" + num(n_heads) + ") must divide d_model (" + num(d_model) + ")");
  }
  if (n_kv_heads > 0 && n_heads % n_kv_heads != 0) {
    throw InputError("key/value heads (" + num(n_kv_heads) + ") must divide heads (" + num(n_heads) + ")");
  }
  const int64_t params = attention_param_count(*this);
  const std::string shape = "d_model " + num(d_model) + ", " + num(n_heads) + " heads of width " + num(head_width());
  if (params > kMaxLayerParams) {
    throw InputError("the attention layer would hold " + num(params) + " parameters (" + shape + "); the limit is " +
                     num(kMaxLayerParams));
  }
  // Weights that would take more than half of the machine's memory only end in std::bad_alloc
  // (or the kernel's OOM killer) halfway through; refuse them with the sizes instead.
  const double weight_bytes = double(params) * sizeof(float);
  if (const int64_t memory = physical_memory_bytes(); memory > 0 && weight_bytes > 0.5 * double(memory)) {
    throw InputError("the attention layer's weights would take " + bytes_text(weight_bytes) + " (" + shape +
                     "), over the limit of half this machine's " + bytes_text(double(memory)) + " of memory");
  }
  if (window < -1) throw InputError("window (" + num(window) + ") must be 0 or more (-1: no window)");
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
