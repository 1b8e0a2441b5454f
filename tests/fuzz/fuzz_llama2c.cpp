// libFuzzer harness: llama2.c checkpoints (.bin) and tokenizer.bin files. The first input byte
// picks which one; the rest is the file. A loaded tokenizer must encode and decode every probe
// text; a loaded checkpoint must have the shape its header announced.
#include <cstddef>
#include <cstdint>

#include "core/model/llama2c_checkpoint.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const bool tokenizer = data[0] & 1;
  const int vocab = 1 + data[1] % 64;
  try {
    if (tokenizer) {
      const std::string path = hs::fuzz::write_temp("tok.bin", data + 2, size - 2);
      const hs::Llama2cTokenizer tok(path, vocab);
      for (const char* text : hs::fuzz::kProbeTexts) {
        const std::vector<int> ids = tok.encode(text);
        for (int id : ids)
          if (id < 0 || id >= tok.vocab_size()) __builtin_trap();
        (void)tok.decode(ids);
        for (int id : ids) (void)tok.label(id);
      }
    } else {
      const std::string path = hs::fuzz::write_temp("model.bin", data + 1, size - 1);
      (void)hs::load_llama2c(path);
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
