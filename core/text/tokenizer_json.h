#pragma once
// Hugging Face tokenizer.json for BPE models, mapped onto TokenizerPipeline:
//   normalizer:     null, Prepend, Replace (String pattern), Sequence of those
//   pre_tokenizer:  null, ByteLevel, Metaspace, Split (Regex/String; Isolated/Removed), Digits, Sequence
//   model:          BPE (vocab, merges as "a b" strings or [a, b] pairs, byte_fallback, unk_token,
//                   ignore_merges)
//   post_processor: null, ByteLevel, TemplateProcessing (special tokens around $A), Sequence
//   added_tokens:   matched literally in the text before anything else
// Anything else (WordPiece, Unigram, NFKC, ...) is a FormatError naming the unsupported part.
#include <memory>
#include <string>

#include "core/text/tokenizer_pipeline.h"

namespace hs {

std::unique_ptr<TokenizerPipeline> load_tokenizer_json(const std::string& path);

}  // namespace hs
