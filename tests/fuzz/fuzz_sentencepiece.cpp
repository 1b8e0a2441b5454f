// libFuzzer harness: SentencePiece tokenizer.model files (the protobuf reader, the precompiled
// charsmap's double array, BPE by scores and Unigram). The first byte picks the framing options
// (add_bos, add_eos, legacy); the rest is the file. A loaded tokenizer must encode every probe
// text, alone and as a pair, to ids inside its vocabulary, with valid-UTF-8 labels.
#include <cstddef>
#include <cstdint>

#include "core/formats/sentencepiece_proto.h"
#include "core/text/sentencepiece_tokenizer.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"
#include "fuzz_temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  hs::SentencePieceOptions options;
  options.add_bos = data[0] & 1;
  options.add_eos = data[0] & 2;
  options.legacy = !(data[0] & 4);
  ++data;
  --size;
  try {
    const hs::SentencePieceProto proto = hs::parse_sentencepiece_proto(data, size, "tokenizer.model");
    const auto tok = hs::sentencepiece_tokenizer(proto, options, "tokenizer.model");
    for (const char* text : hs::fuzz::kProbeTexts) {
      const hs::Encoding e = tok->encode_pair(text, std::string_view("pair \xE2\x96\x81 text"));
      for (const int id : e.ids) {
        if (id < 0 || id >= tok->vocab_size()) __builtin_trap();
        if (!hs::utf8_is_valid(tok->label(id))) __builtin_trap();
      }
      if (e.type_ids.size() != e.ids.size() || e.labels.size() != e.ids.size()) __builtin_trap();
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
