#pragma once
// The model step of a tokenizer pipeline (tokenizer_pipeline.h): a vocabulary of pieces, and the
// rule that cuts one pre-tokenized word into pieces. Implemented by BpeModel (merge ranks),
// ScoredBpeModel (SentencePiece BPE by piece scores), UnigramModel (Viterbi over piece scores) and
// WordPieceModel (greedy longest match).
#include <string>
#include <string_view>
#include <vector>

namespace hs {

class PieceModel {
 public:
  virtual ~PieceModel() = default;
  // Appends the ids of one word (valid UTF-8). Throws InputError when a part of it has no piece,
  // no byte fallback and no unknown token.
  virtual void encode_word(std::string_view word, std::vector<int>& out) const = 0;
  virtual int size() const = 0;                                // ids are 0 .. size() - 1
  virtual const std::string& piece(int id) const = 0;         // id in range
  virtual int id_of(const std::string& piece) const = 0;       // -1 when missing
};

// Appends the "<0xHH>" piece of each byte of `text` (SentencePiece's byte fallback); returns false
// (appending nothing) when the model lacks one of them.
bool append_byte_pieces(const PieceModel& model, std::string_view text, std::vector<int>& out);

}  // namespace hs
