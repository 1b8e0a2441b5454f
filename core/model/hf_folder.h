#pragma once
// Hugging Face model folders: config.json + model.safetensors (or sharded with
// model.safetensors.index.json) + tokenizer files, for model_type gpt2, the RoPE decoder
// families (core/model/families.h) and the encoder families (bert, roberta, xlm-roberta,
// distilbert, electra, modernbert).
#include <memory>
#include <string>

#include "core/model/special_tokens.h"
#include "core/model/transformer_model.h"
#include "core/text/tokenizer_base.h"

namespace hs {

struct HfModel {
  std::shared_ptr<const TransformerModel> model;
  std::shared_ptr<const SubwordTokenizer> tokenizer;
  int bos_id = -1;  // config.json's bos_token_id (GPT-2: <|endoftext|>), -1 when absent (and for encoders)
  // Encoders: the tokenizer with the post-processor's special tokens and sentence pairs; null for decoders.
  std::shared_ptr<const SentenceEncoder> sentences;
};

// Throws IoError / FormatError / InputError naming the file, tensor and expectation.
HfModel load_hf_folder(const std::string& dir);

}  // namespace hs
