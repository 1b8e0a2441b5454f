#pragma once
// The tokenizer of an encoder folder (bert, roberta, xlm-roberta, distilbert, electra,
// modernbert): the folder's own tokenizer (core/text/tokenizer_folder.h: tokenizer.json,
// vocab.json + merges.txt, tokenizer.model or vocab.txt) with the special tokens its
// post-processor puts around a sentence or a pair. A tokenizer that brings no post-processor
// (a RoBERTa folder with vocab.json + merges.txt) gets its family's template: [CLS] A [SEP] for
// BERT-style models, <s> A </s></s> B </s> for RoBERTa / XLM-R, ids from config.json
// (cls/sep_token_id, bos/eos_token_id) or, failing that, the vocabulary.
#include <memory>
#include <string>

#include "core/model/hf_config.h"
#include "core/model/special_tokens.h"

namespace hs {

std::shared_ptr<const SentenceEncoder> load_encoder_tokenizer(const std::string& dir, const HfConfig& config);

}  // namespace hs
