// libFuzzer harness: arbitrary model controls (what the app's sliders and the CLI's flags can
// set) on a short sentence. validate() must reject every impossible shape before the engine
// runs; accepted ones must give finite, row-stochastic maps with masked cells exactly 0.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/model/attention_layer.h"
#include "core/model/synthetic_model.h"
#include "core/util/errors.h"

namespace {
template <typename T>
T take(const uint8_t*& data, size_t& size) {
  T v{};
  const size_t n = size < sizeof(T) ? size : sizeof(T);
  std::memcpy(&v, data, n);
  data += n;
  size -= n;
  return v;
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  hs::SyntheticSpec spec;
  hs::AttentionConfig& c = spec.attention;
  c.d_model = take<int8_t>(data, size);       // small ranges keep each run fast; signs test validation
  c.n_heads = take<int8_t>(data, size);
  c.n_kv_heads = take<int8_t>(data, size);
  c.d_head = take<int8_t>(data, size);
  c.window = take<int8_t>(data, size);
  c.causal = take<uint8_t>(data, size) & 1;
  c.temperature = take<float>(data, size);
  spec.seed = take<uint64_t>(data, size);
  const int tokens = 1 + take<uint8_t>(data, size) % 24;
  std::vector<std::string> words;
  for (int t = 0; t < tokens; ++t) words.push_back("w" + std::to_string(t % 5));
  try {
    const hs::AttentionRun run = hs::run_synthetic_tokens(words, spec, {1, false, nullptr});
    for (const auto& head : run.attention[0]) {
      if (!head.allFinite()) __builtin_trap();
      for (int i = 0; i < head.rows(); ++i) {
        if (std::fabs(head.row(i).sum() - 1.0f) > 1e-4f) __builtin_trap();
        for (int j = 0; j < head.cols(); ++j)
          if (!hs::key_visible(c, i, j) && head(i, j) != 0.0f) __builtin_trap();
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
