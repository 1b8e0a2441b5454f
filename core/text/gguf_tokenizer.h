#pragma once
// The tokenizer a GGUF file describes in its metadata, built as llama.cpp builds it
// (src/llama-vocab.cpp):
//   tokenizer.ggml.model   "llama": SentencePiece by scores (spm_tokenizer.h), with
//                          tokenizer.ggml.scores, byte fallback through "<0xHH>" pieces and
//                          tokenizer.ggml.add_space_prefix (default true);
//                          "gpt2": byte-level BPE (tokenizer_pipeline.h) with
//                          tokenizer.ggml.merges ("A B", rank order) and the pre-tokenizer
//                          regexes named by tokenizer.ggml.pre (missing: "default")
//   tokenizer.ggml.tokens / token_type: the vocabulary (id order) and each token's type; unknown,
//                          control and user-defined tokens are cut out of the text whole
//   bos/eos/unknown_token_id, add_bos_token, add_eos_token: special ids and whether they are
//                          added (defaults as llama.cpp's: "llama" adds BOS; "gpt2" adds it for
//                          the Llama 3 and Tekken pre-tokenizers)
// Any other model or pre-tokenizer name is a FormatError naming it and what is supported.
#include <memory>
#include <string>
#include <vector>

#include "core/formats/gguf.h"
#include "core/text/tokenizer_base.h"

namespace hs {

// Throws FormatError naming the file and the metadata key that is missing, mistyped or unsupported.
std::unique_ptr<SubwordTokenizer> load_gguf_tokenizer(const GgufFile& file);

// The tokenizer.ggml.pre names headscope reads (for messages and tests).
std::vector<std::string> gguf_pre_tokenizer_names();

}  // namespace hs
