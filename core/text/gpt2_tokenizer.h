#pragma once
// GPT-2's byte-level BPE from its two original files: encoder.json / vocab.json (piece -> id,
// pieces in the byte alphabet of gpt2_byte_map.h) and vocab.bpe / merges.txt ("#version" line,
// then one merge "A B" per line in rank order). Pre-tokenized by GPT-2's regex, no prefix
// space, no BOS; "<|endoftext|>" in the text is the special token itself (as Hugging Face does).
#include <memory>
#include <string>

#include "core/text/tokenizer_pipeline.h"

namespace hs {

// Throws IoError / FormatError naming the file and the line or entry.
std::unique_ptr<TokenizerPipeline> load_gpt2_tokenizer(const std::string& vocab_json, const std::string& merges_txt);

}  // namespace hs
