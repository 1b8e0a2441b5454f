// libFuzzer harness: arbitrary bytes as a typed sentence. The tokenizer must repair any UTF-8,
// give labels that are valid UTF-8, and the synthetic engine must produce row-stochastic maps.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/formats/json_text.h"
#include "core/model/synthetic_model.h"
#include "core/util/utf8.h"
#include "core/text/word_tokenizer.h"
#include "core/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (!hs::utf8_is_valid(hs::utf8_repair(text))) __builtin_trap();
  (void)hs::json_string(text);
  try {
    const auto tokens = hs::tokenize_words(text);
    for (const auto& t : tokens)
      if (t.text.empty() || !hs::utf8_is_valid(t.text)) __builtin_trap();
    if (tokens.size() > 48) return 0;  // keep iterations fast
    hs::SyntheticSpec spec;
    spec.attention.d_model = 8;
    spec.attention.n_heads = 2;
    spec.attention.causal = size % 2 == 0;
    const hs::AttentionRun run = hs::run_synthetic_tokens(hs::token_texts(tokens), spec, {1, false, nullptr});
    for (const auto& head : run.attention[0])
      for (Eigen::Index i = 0; i < head.rows(); ++i)
        if (std::fabs(head.row(i).sum() - 1.0f) > 1e-4f) __builtin_trap();
  } catch (const hs::Error&) {
  }
  return 0;
}
