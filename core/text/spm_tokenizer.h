#pragma once
// llama.cpp's SentencePiece tokenizer (llm_tokenizer_spm; GGUF tokenizer.ggml.model "llama"):
//   1. special tokens (types unknown, control, user-defined: "<s>", "<unk>", "<tag>") are cut
//      out of the text, longest first, and become their ids;
//   2. each remaining fragment gets a leading space when it starts the text or follows a special
//      token (add_space_prefix, llama.cpp's rule), and every space becomes "▁";
//   3. the fragment is merged by piece scores (scored_pieces.h, no score floor);
//   4. a symbol that is not a piece becomes its UTF-8 bytes as "<0xHH>" pieces (byte fallback),
//      or the unknown token when the vocabulary has no such byte piece;
//   5. BOS before the text (add_bos), EOS after it (add_eos).
// Text is repaired to valid UTF-8 first (each invalid subpart becomes U+FFFD).
#include <string>
#include <vector>

#include "core/text/scored_pieces.h"
#include "core/text/tokenizer_base.h"

namespace hs {

// GGUF tokenizer.ggml.token_type values (llama.cpp's llama_token_type).
enum class TokenType : int { undefined = 0, normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

// Unknown, control and user-defined tokens are matched in the text as whole strings.
inline bool is_special_token_type(int type) {
  return type == int(TokenType::unknown) || type == int(TokenType::control) || type == int(TokenType::user_defined);
}

struct SpmOptions {
  int bos = -1;  // -1: none
  int eos = -1;
  int unk = -1;
  bool add_bos = true;
  bool add_eos = false;
  bool add_space_prefix = true;
};

class SpmTokenizer : public SubwordTokenizer {
 public:
  // types: one TokenType value per piece (pieces, scores and types have the same length); ids
  // in `options` are -1 or inside the vocabulary (the caller checks them).
  SpmTokenizer(std::vector<std::string> pieces, std::vector<float> scores, std::vector<int> types, SpmOptions options);

  std::vector<int> encode(std::string_view text) const override;
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override;
  int vocab_size() const override { return vocab_.size(); }
  bool is_special(int id) const override {
    return id >= 0 && id < vocab_size() && (types_[size_t(id)] == int(TokenType::control) || types_[size_t(id)] == int(TokenType::unknown));
  }

 private:
  void encode_fragment(std::string text, std::vector<int>& out) const;

  ScoredPieces vocab_;
  std::vector<int> types_;
  SpmOptions options_;
  std::vector<int> specials_;    // ids of special tokens, longest text first
  bool special_starts_[256];     // some special token starts with this byte
  int byte_ids_[256];            // "<0xHH>" piece of each byte, or -1
};

}  // namespace hs
