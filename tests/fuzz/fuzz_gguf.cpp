// libFuzzer harness: GGUF files (the input is the file). A file that opens must render every
// metadata value as text, dequantize every tensor of a readable type, multiply every readable
// 2-D tensor as a QuantizedMatrix (the result has the matrix's shape), and, when it names a
// tokenizer that loads, encode every probe text to ids inside the vocabulary with valid-UTF-8
// labels.
#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/formats/gguf.h"
#include "core/model/quantized_matrix.h"
#include "core/text/gguf_tokenizer.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"
#include "fuzz_temp_file.h"

namespace {

bool is_matrix(const hs::GgufTensor& t) {
  for (size_t d = 2; d < t.dims.size(); ++d)
    if (t.dims[d] != 1) return false;
  return t.rows() > 0 && t.row_length() > 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::shared_ptr<const hs::GgufFile> file;
  try {
    file = std::make_shared<const hs::GgufFile>(hs::fuzz::write_temp("model.gguf", data, size));
  } catch (const hs::Error&) {
    return 0;
  }
  for (const std::string& key : file->keys()) (void)file->value(key).text();
  for (const hs::GgufTensor& t : file->tensors()) {
    if (!hs::ggml_type_info(t.type).dequantizable) {
      try {
        (void)file->dequantize(t);
        __builtin_trap();  // an unreadable type must be refused
      } catch (const hs::FormatError&) {
      }
      continue;
    }
    if (size_t(t.elements()) != file->dequantize(t).size()) __builtin_trap();
    if (!is_matrix(t)) continue;
    const hs::QuantizedMatrix w(file, t.name);
    const hs::Map x = hs::Map::Ones(2, w.cols());
    const hs::Map y = w.multiply_wt(x, 2);
    if (y.rows() != 2 || y.cols() != w.rows()) __builtin_trap();
    if (w.row(w.rows() - 1).size() != w.cols()) __builtin_trap();
  }
  try {
    const auto tok = hs::load_gguf_tokenizer(*file);
    for (const char* text : hs::fuzz::kProbeTexts) {
      for (const int id : tok->encode(text)) {
        if (id < 0 || id >= tok->vocab_size()) __builtin_trap();
        if (!hs::utf8_is_valid(tok->label(id))) __builtin_trap();
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
