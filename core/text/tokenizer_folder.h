#pragma once
// The tokenizer of a Hugging Face model folder, from the files it has, in this order:
//   tokenizer.json             load_tokenizer_json (tokenizer_json.h); when its post-processor adds
//                              no token, tokenizer_config.json's add_bos_token / add_eos_token (with
//                              bos_token / eos_token) add them, as transformers' fast tokenizer does
//   vocab.json + merges.txt    GPT-2's byte-level BPE (gpt2_tokenizer.h)
//   tokenizer.model            SentencePiece (sentencepiece_tokenizer.h); tokenizer_config.json's
//                              add_bos_token, add_eos_token, legacy, bos_token and eos_token when given
//   vocab.txt                  BERT's WordPiece (load_bert_vocab below)
// tokenizer_config.json is optional; a malformed one is a FormatError naming it.
#include <memory>
#include <string>

#include "core/text/tokenizer_pipeline.h"

namespace hs {

// Throws InputError naming the folder and the files looked for when none is there; IoError /
// FormatError from the file that is read.
std::unique_ptr<TokenizerPipeline> load_folder_tokenizer(const std::string& dir);

// BERT's tokenizer from vocab.txt (one piece per line, line i is id i), as transformers'
// BertTokenizerFast builds it: BertNormalizer (clean_text; handle_chinese_chars =
// tokenize_chinese_chars; strip_accents; lowercase = do_lower_case, default true),
// BertPreTokenizer, WordPiece ("##", max 100 characters a word, unk_token), and BertProcessing
// with cls_token / sep_token; the special tokens ([PAD], [UNK], [CLS], [SEP], [MASK] or the
// config's names) that are in the vocabulary are cut out of the text whole. `config_json` is the
// path of tokenizer_config.json, or "" for the defaults.
std::unique_ptr<TokenizerPipeline> load_bert_vocab(const std::string& vocab_txt, const std::string& config_json = "");

}  // namespace hs
