#pragma once
// The BPE model shared by GPT-2's encoder.py and Hugging Face's tokenizers "BPE":
// a word (valid UTF-8) starts as one symbol per code point; then, repeatedly, the adjacent pair
// with the lowest merge rank is merged, every occurrence left to right, until no pair has a rank.
// Each final symbol is looked up in the vocabulary; one that is missing becomes its UTF-8 bytes
// as "<0xHH>" pieces (byte_fallback, SentencePiece style) or the unknown token.
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/text/piece_model.h"

namespace hs {

class BpeModel : public PieceModel {
 public:
  // vocab: piece -> id (ids 0..n-1 with no gaps); merges in rank order (earlier = applied first).
  // Throws FormatError (prefixed by `where`) when a merge names a piece missing from the vocabulary
  // or an id is duplicated or out of range.
  BpeModel(std::unordered_map<std::string, int> vocab, const std::vector<std::pair<std::string, std::string>>& merges,
           const std::string& where);

  bool byte_fallback = false;  // missing symbols become <0xHH> pieces
  bool ignore_merges = false;  // a word that is itself a piece is emitted whole (Llama 3)
  int unk_id = -1;             // used for a missing symbol when there is no byte fallback

  // Appends the ids of one pre-tokenized word. Throws InputError when a symbol has no piece,
  // no byte fallback and no unknown token.
  void encode_word(std::string_view word, std::vector<int>& out) const override;

  int size() const override { return static_cast<int>(pieces_.size()); }
  const std::string& piece(int id) const override { return pieces_.at(size_t(id)); }
  int id_of(const std::string& piece) const override;  // -1 when missing

 private:
  std::unordered_map<std::string, int> vocab_;
  std::vector<std::string> pieces_;
  std::unordered_map<std::string, int> ranks_;  // "left\0right" -> rank
};

}  // namespace hs
