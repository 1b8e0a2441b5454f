#pragma once
// A model's tokenizer without its weights (headscope-cli tokens), from what `--model` names:
//   a folder      its tokenizer files (tokenizer_folder.h); when its config.json names an encoder
//                 type (bert, roberta, ...), with the [CLS] / [SEP] framing the model gets
//                 (encoder_tokenizer.h). No weights needed.
//   a GGUF file   the tokenizer in its metadata (gguf_tokenizer.h)
//   a .json file  a tokenizer.json alone
//   a llama2.c checkpoint  the tokenizer.bin / tok<vocab>.bin beside it (pretrained.h)
//   a model that comes with headscope, by name (shipped_models.h): teaching, stories260K
// and `llama2c_tokenizer` (--tokenizer FILE), a llama2.c tokenizer.bin read alone (every entry
// of the file), which wins over the checkpoint's neighbours.
#include <memory>
#include <string>

#include "core/text/tokenizer_base.h"

namespace hs {

struct LoadedTokenizer {
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  std::string kind;  // "tokenizer.json", "GGUF", "llama2.c", "vocab.json + merges.txt", ...
  std::string path;  // what was read
};

// Throws InputError when neither names a tokenizer; the loaders' IoError / FormatError otherwise.
LoadedTokenizer load_tokenizer_only(const std::string& model_path, const std::string& llama2c_tokenizer);

}  // namespace hs
