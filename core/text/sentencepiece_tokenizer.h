#pragma once
// A tokenizer from SentencePiece's tokenizer.model (core/formats/sentencepiece_proto.h), encoding
// as SentencePiece does, framed as transformers' LlamaTokenizer / GemmaTokenizer frame it:
//   1. control and unknown pieces ("<s>", "</s>", "<unk>", "<start_of_turn>") written in the text
//      are cut out whole and become their ids;
//   2. each remaining piece of text is normalized by the model's NormalizerSpec (normalizers.h:
//      precompiled rules such as nmt_nfkc, user-defined symbols kept, extra whitespace removed,
//      the dummy prefix, spaces escaped as "▁");
//   3. model_type BPE: merges by piece scores (scored_bpe_model.h); UNIGRAM: the Viterbi best
//      segmentation by piece scores (unigram_model.h); with byte_fallback, an unknown character
//      becomes its UTF-8 bytes as "<0xHH>" pieces, without it runs of unknown characters one
//      unknown token;
//   4. BOS before (add_bos), EOS after (add_eos); a pair is "BOS A EOS BOS B EOS" with token
//      types 0 and 1 (each only when added).
// WORD and CHAR models are refused.
#include <memory>
#include <string>

#include "core/formats/sentencepiece_proto.h"
#include "core/text/tokenizer_pipeline.h"

namespace hs {

struct SentencePieceOptions {
  bool add_bos = true;   // transformers' default for Llama, Mistral and Gemma tokenizers
  bool add_eos = false;
  bool legacy = true;    // false: only the text's first piece gets the dummy prefix
  std::string bos_token;  // "" = the model's bos_piece
  std::string eos_token;  // "" = the model's eos_piece
};

// Throws FormatError naming `where` and the piece or setting when the model is not one SentencePiece
// would load (no pieces, an empty or repeated piece, no or two unknown pieces, byte pieces
// without byte_fallback or not all 256 with it, a score that is not finite) or is WORD / CHAR.
std::unique_ptr<TokenizerPipeline> sentencepiece_tokenizer(const SentencePieceProto& proto, const SentencePieceOptions& options,
                                                           const std::string& where);

// Reads `path` (tokenizer.model) and builds its tokenizer.
std::unique_ptr<TokenizerPipeline> load_sentencepiece_tokenizer(const std::string& path, const SentencePieceOptions& options = {});

}  // namespace hs
