#pragma once
// WordPiece (BERT), as Hugging Face tokenizers' WordPiece model cuts a word:
//   a word longer than max_input_chars_per_word code points is the unknown token alone;
//   otherwise, from the start, the longest prefix of the rest that is a piece (after the first
//   piece, with the continuing_subword_prefix "##" before it) is taken, shortening one code point
//   at a time; when no prefix is a piece, the whole word is the unknown token.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/piece_model.h"

namespace hs {

class WordPieceModel : public PieceModel {
 public:
  // pieces[i] has id i; a repeated piece is looked up as its last id (as transformers reads
  // vocab.txt). Throws FormatError (prefixed by `where`) when unk_token is not a piece.
  WordPieceModel(std::vector<std::string> pieces, std::string unk_token, std::string continuing_prefix,
                 int max_input_chars_per_word, const std::string& where);

  void encode_word(std::string_view word, std::vector<int>& out) const override;
  int size() const override { return int(pieces_.size()); }
  const std::string& piece(int id) const override { return pieces_.at(size_t(id)); }
  int id_of(const std::string& piece) const override;

  const std::string& continuing_prefix() const { return prefix_; }
  int unk_id() const { return unk_id_; }

 private:
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, int> ids_;
  std::string prefix_;
  int max_chars_ = 100;
  int unk_id_ = -1;
};

}  // namespace hs
