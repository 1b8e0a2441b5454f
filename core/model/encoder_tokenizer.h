#pragma once
// The tokenizer of an encoder folder (bert, roberta, xlm-roberta, distilbert, electra,
// modernbert) with its post-processor, as one SentenceEncoder (core/model/special_tokens.h).
//
// The tokenizer itself comes from the folder's usual loader (hf_folder.cpp's, given as `load`), so
// every tokenizer core/text reads works here too. Until core/text reads them all:
//   - a tokenizer.json whose post-processor it refuses (RoBERTa's RobertaProcessing, BertProcessing)
//     is loaded without it; the post-processor is applied here instead;
//   - a tokenizer it cannot read at all (WordPiece, Unigram) still names the tokens: ids given
//     directly (--input-ids) are labelled from the vocabulary, and encoding text throws the
//     loader's message with that hint.
// The post-processor comes from tokenizer.json's "post_processor", or, without a tokenizer.json,
// from the family's template with ids from config.json (or vocab.txt / vocab.json).
#include <functional>
#include <memory>
#include <string>

#include "core/model/hf_config.h"
#include "core/model/special_tokens.h"

namespace hs {

std::shared_ptr<const SentenceEncoder> load_encoder_tokenizer(
    const std::string& dir, const HfConfig& config, const std::function<std::shared_ptr<const SubwordTokenizer>()>& load);

}  // namespace hs
