#pragma once
// llama2.c's tokenizer.bin and its encoder, exactly as run.c:
//   file: int32 max_token_length, then per id: float32 score, int32 byte length, the bytes.
//   encode: BOS (id 1); for non-empty text the " " piece (dummy prefix); each UTF-8 character's
//   piece, or its bytes as byte-fallback ids (byte + 3); then repeatedly merge the adjacent pair
//   whose concatenation is a piece with the highest score (leftmost on ties) until none is.
//   decode: a piece right after BOS loses its leading space; "<0xHH>" is the raw byte HH.
#include <string>
#include <vector>

#include "core/text/scored_pieces.h"
#include "core/text/tokenizer_base.h"

namespace hs {

class Llama2cTokenizer : public SubwordTokenizer {
 public:
  // Reads exactly `vocab_size` entries (the checkpoint's) and requires the file to end there.
  // Throws IoError / FormatError naming the file, the entry and what is wrong.
  Llama2cTokenizer(const std::string& path, int vocab_size);
  // The number of entries in the file (for a tokenizer read without its checkpoint): the entries
  // up to its end, at most kMaxVocabSize. Throws FormatError when the file does not end on an entry.
  static int count_entries(const std::string& path);

  std::vector<int> encode(std::string_view text) const override;
  std::string piece_bytes(int id) const override;
  std::string label(int id) const override;
  int vocab_size() const override { return vocab_.size(); }
  bool is_special(int id) const override { return id == kBos || id == kEos; }

  // run.c's decode of `token` after `prev`, concatenated over ids (ids[0] is usually BOS).
  std::string decode(const std::vector<int>& ids) const;
  const std::string& piece(int id) const { return vocab_.piece(id); }
  float score(int id) const { return vocab_.score(id); }

  static constexpr int kBos = 1;
  static constexpr int kEos = 2;

 private:
  int byte_fallback_id(unsigned char b) const;

  ScoredPieces vocab_;  // run.c looks pieces up by bsearch over the sorted vocabulary: a repeated piece keeps its first id
};

}  // namespace hs
