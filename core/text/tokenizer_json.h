#pragma once
// Hugging Face tokenizer.json, mapped onto TokenizerPipeline (tokenizer_pipeline.h):
//   model:          BPE (vocab, merges as "a b" strings or [a, b] pairs, byte_fallback, unk_token,
//                   ignore_merges); Unigram (vocab [[piece, score], ...], unk_id, byte_fallback:
//                   unigram_model.h); WordPiece (vocab, unk_token, continuing_subword_prefix,
//                   max_input_chars_per_word: wordpiece_model.h)
//   normalizer:     null, Prepend, Replace (String or Regex pattern), NFC, NFD, NFKC, NFKD,
//                   Lowercase, StripAccents, Strip, Nmt, BertNormalizer, Precompiled (base64
//                   SentencePiece rules), Sequence of those (normalizers.h)
//   pre_tokenizer:  null, ByteLevel, Metaspace, Split (Regex/String; every behavior; invert),
//                   Digits, BertPreTokenizer, WhitespaceSplit, Whitespace, Punctuation (every
//                   behavior), CharDelimiterSplit, Sequence
//   post_processor: null, ByteLevel, TemplateProcessing (single and pair templates with type ids),
//                   BertProcessing, RobertaProcessing, Sequence (post_processor.h)
//   added_tokens:   matched literally in the text before anything else (lstrip / rstrip take the
//                   whitespace beside them)
// Anything else (a ByteLevel normalizer, WordLevel models, ...) is a
// FormatError naming the unsupported part and what is supported.
#include <memory>
#include <string>

#include "core/text/tokenizer_pipeline.h"

namespace hs {

std::unique_ptr<TokenizerPipeline> load_tokenizer_json(const std::string& path);

}  // namespace hs
