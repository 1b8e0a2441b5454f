// libFuzzer harness: Hugging Face tokenizer files. The first byte picks tokenizer.json, or
// vocab.json + merges.txt (the input split at the first NUL byte). A loaded tokenizer must
// encode every probe text to ids inside its vocabulary, with valid-UTF-8 labels.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/gpt2_tokenizer.h"
#include "core/text/tokenizer_json.h"
#include "core/util/utf8.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool json_file = data[0] & 1;
  ++data;
  --size;
  try {
    std::unique_ptr<hs::TokenizerPipeline> tok;
    if (json_file) {
      tok = hs::load_tokenizer_json(hs::fuzz::write_temp("tokenizer.json", data, size));
    } else {
      const auto* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
      const size_t split = nul ? size_t(nul - data) : size;
      const std::string vocab = hs::fuzz::write_temp("vocab.json", data, split);
      const std::string merges = hs::fuzz::write_temp("merges.txt", data + split + (nul ? 1 : 0), size - split - (nul ? 1 : 0));
      tok = hs::load_gpt2_tokenizer(vocab, merges);
    }
    for (const char* text : hs::fuzz::kProbeTexts) {
      for (int id : tok->encode(text)) {
        if (id < 0 || id >= tok->vocab_size()) __builtin_trap();
        if (!hs::utf8_is_valid(tok->label(id))) __builtin_trap();
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
