// libFuzzer harness: Unigram and WordPiece tokenizers from Hugging Face files (tokenizer.json
// with Unigram / WordPiece models, Precompiled, BertNormalizer and the Unicode normalizers,
// Metaspace / BertPreTokenizer, pair templates) and BERT vocab.txt folders. The first byte picks
// tokenizer.json (odd) or vocab.txt + tokenizer_config.json (even; the input split at the first
// NUL byte). A loaded tokenizer must encode every probe text, alone and as a pair, to ids inside
// its vocabulary, with valid-UTF-8 labels.
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/text/tokenizer_folder.h"
#include "core/text/tokenizer_json.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"
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
      const std::string vocab = hs::fuzz::write_temp("vocab.txt", data, split);
      const std::string config = hs::fuzz::write_temp("tokenizer_config.json", data + split + (nul ? 1 : 0), size - split - (nul ? 1 : 0));
      tok = hs::load_bert_vocab(vocab, nul ? config : "");
    }
    for (const char* text : hs::fuzz::kProbeTexts) {
      for (int pair = 0; pair < 2; ++pair) {
        hs::Encoding e;
        try {
          e = pair ? tok->encode_pair(text, std::string_view("[SEP] second \xE4\xB8\xAD text")) : tok->encode_pair(text);
        } catch (const hs::InputError&) {  // a text the vocabulary cannot spell, or no pair template
          continue;
        }
        for (const int id : e.ids) {
          if (id < 0 || id >= tok->vocab_size()) __builtin_trap();
          if (!hs::utf8_is_valid(tok->label(id))) __builtin_trap();
        }
        if (e.type_ids.size() != e.ids.size() || e.special.size() != e.ids.size()) __builtin_trap();
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
