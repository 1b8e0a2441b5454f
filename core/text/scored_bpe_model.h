#pragma once
// SentencePiece's BPE model (bpe_model.cc), the model of a tokenizer.model with model_type BPE:
//   the normalized text starts as one symbol per code point, except that a user-defined piece
//   found there (the longest) is one frozen symbol; symbols are merged by piece scores
//   (scored_pieces.h: the adjacent pair whose concatenation is a normal, user-defined or unused
//   piece with the highest score, leftmost on ties; frozen symbols never merge);
//   a symbol that is an unused piece is split back into the two symbols that last made it;
//   each symbol is looked up (control, unknown and byte pieces first, then the others), else it is
//   unknown: consecutive unknown symbols are fused into one unknown token, or, with byte_fallback,
//   each becomes its UTF-8 bytes as "<0xHH>" pieces.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/piece_model.h"
#include "core/text/piece_trie.h"
#include "core/text/scored_pieces.h"
#include "core/text/unigram_model.h"

namespace hs {

class ScoredBpeModel : public PieceModel {
 public:
  // pieces, scores and roles: one per id (unigram_model.h's roles: reserved = control, unknown and
  // byte pieces). unk_id must be an id. Pieces are distinct (the caller checks).
  ScoredBpeModel(std::vector<std::string> pieces, std::vector<float> scores, std::vector<UnigramRole> roles, int unk_id,
                 bool byte_fallback);

  void encode_word(std::string_view word, std::vector<int>& out) const override;
  int size() const override { return vocab_.size(); }
  const std::string& piece(int id) const override { return vocab_.piece(id); }
  int id_of(const std::string& piece) const override;

 private:
  ScoredPieces vocab_;  // lookup() finds normal, user-defined and unused pieces only
  std::vector<UnigramRole> roles_;
  std::unordered_map<std::string, int> ids_;  // every piece
  PieceTrie user_defined_;
  int unk_id_ = 0;
  bool byte_fallback_ = false;
};

}  // namespace hs
