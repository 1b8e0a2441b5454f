#pragma once
// Unigram language-model tokenization (Kudo 2018), as SentencePiece's unigram_model.cc
// (EncodeOptimized) and Hugging Face tokenizers' Unigram (encode_optimized) compute it:
//   best[0] = 0; for each start position s (a code point boundary), for each piece p that the
//   text at s starts with (shortest first): best[s + |p|] = max(best[s + |p|], best[s] + score(p)),
//   ties keeping the earlier candidate; when no piece is exactly the code point at s, the unknown
//   token covers that code point with score min_score - 10. The tokens are read back from the end.
// Then consecutive unknown tokens are fused into one; a fused unknown becomes its UTF-8 bytes as
// "<0xHH>" pieces when byte_fallback is on and the vocabulary has all of them, else the unknown id.
// The two implementations differ in details kept here as the Flavor:
//   hugging_face:  every piece can match; min_score over all pieces; path scores in double; a
//                  fused unknown that is itself a piece is that piece.
//   sentencepiece: only normal, user-defined and unused pieces are looked up, unused ones are
//                  skipped; a user-defined piece of n bytes scores n * max_score - 0.1 (max_score
//                  over normal pieces, at least FLT_MIN) so that it always wins; min_score over
//                  normal pieces; path scores stored as float.
#include <string>
#include <unordered_map>
#include <vector>

#include "core/text/piece_model.h"
#include "core/text/piece_trie.h"

namespace hs {

enum class UnigramRole : unsigned char { normal, user_defined, unused, reserved };

class UnigramModel : public PieceModel {
 public:
  enum class Flavor { hugging_face, sentencepiece };

  // pieces, scores and roles have one entry per id (roles only matter to the sentencepiece
  // flavour: reserved = control, unknown and byte pieces, never matched in text). unk_id is -1
  // (none: an unknown character is an InputError) or an id. Throws FormatError (prefixed by
  // `where`) when unk_id is out of range or a score is not finite.
  UnigramModel(std::vector<std::string> pieces, std::vector<double> scores, std::vector<UnigramRole> roles, int unk_id,
               bool byte_fallback, Flavor flavor, const std::string& where);

  void encode_word(std::string_view word, std::vector<int>& out) const override;
  int size() const override { return int(pieces_.size()); }
  const std::string& piece(int id) const override { return pieces_.at(size_t(id)); }
  int id_of(const std::string& piece) const override;

 private:
  double lattice_score(int id, size_t length) const;

  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  std::vector<UnigramRole> roles_;
  std::unordered_map<std::string, int> ids_;
  PieceTrie trie_;
  int unk_id_ = -1;
  bool byte_fallback_ = false;
  Flavor flavor_ = Flavor::hugging_face;
  double unk_score_ = -10.0;
  float max_score_ = 0.0f;  // sentencepiece: for user-defined pieces
};

}  // namespace hs
