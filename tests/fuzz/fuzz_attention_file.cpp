// libFuzzer harness: arbitrary bytes as an attention file (--attention). Selector byte: bit 0
// picks the container (0 .safetensors, 1 .npz); bit 1 says a FILE.tokens.json beside it follows:
// the next byte is its length, then its bytes; the rest is the file. The reader must give a run
// whose every map is T x T with finite, non-negative weights and T tokens, or hs::Error; the run
// must then go through the whole analysis.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/analysis/run_analysis.h"
#include "core/model/attention_file.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t selector = data[0];
  ++data;
  --size;
  const std::string name = (selector & 1) ? "maps.npz" : "maps.safetensors";
  const std::string side = hs::fuzz::temp_dir() + "/" + name + ".tokens.json";
  std::remove(side.c_str());
  if (selector & 2) {
    if (size < 1) return 0;
    const size_t n = std::min<size_t>(data[0], size - 1);
    if (hs::fuzz::write_temp(name + ".tokens.json", data + 1, n).empty()) return 0;
    data += 1 + n;
    size -= 1 + n;
  }
  const std::string path = hs::fuzz::write_temp(name, data, size);
  if (path.empty()) return 0;
  try {
    const hs::AttentionRun run = hs::read_attention_file(path);
    const int T = run.n_tokens();
    if (T < 1 || run.n_layers() < 1 || run.n_heads() < 1) __builtin_trap();
    if (!run.special_tokens.empty() && int(run.special_tokens.size()) != T) __builtin_trap();
    if (!run.token_ids.empty() && int(run.token_ids.size()) != T) __builtin_trap();
    if (run.segment_b_start < -1 || run.segment_b_start >= T) __builtin_trap();
    for (const hs::LayerMaps& layer : run.attention) {
      if (int(layer.size()) != run.n_heads()) __builtin_trap();
      for (const hs::Map& m : layer) {
        if (m.rows() != T || m.cols() != T) __builtin_trap();
        for (Eigen::Index i = 0; i < m.size(); ++i)
          if (!std::isfinite(m.data()[i]) || m.data()[i] < 0.0f) __builtin_trap();
      }
    }
    const auto analysis = hs::analyse_run(run);
    if (analysis->difference.size() != run.attention.size()) __builtin_trap();
  } catch (const hs::Error&) {
  }
  return 0;
}
