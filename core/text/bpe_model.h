#pragma once
// The BPE model of Hugging Face's tokenizers "BPE", llama.cpp's gpt2 tokenizer and GPT-2's
// encoder.py. A word (valid UTF-8) starts as one symbol per code point: its piece, else (with
// byte_fallback) the "<0xHH>" pieces of its bytes, else the unknown token (consecutive ones fused
// into one with fuse_unk). Then adjacent pairs that have a merge rank are merged, in one of two
// orders (they agree when every merge's parts come from earlier merges, as in a BPE trained by
// GPT-2's or tokenizers' trainer; they differ for merges whose ranks are not in build order, as
// in SentencePiece-derived files such as Gemma 3's):
//   lowest_pair_first  the pair with the lowest (rank, position) next, one merge at a time, so a
//                      pair a merge forms can merge at once (tokenizers' word.rs merge_all,
//                      llama.cpp): a priority queue over pair positions, O(n log n) in the word;
//   whole_sweeps       every occurrence of the lowest-ranked pair, left to right, then the next
//                      lowest (GPT-2's encoder.py), from the same queue taken one rank at a time.
// Lookups use flat tables (piece_index.h); words under 256 bytes are cached (up to 10,000 words,
// as tokenizers' BPE cache).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/text/piece_index.h"
#include "core/text/piece_model.h"

namespace hs {

class BpeModel : public PieceModel {
 public:
  enum class MergeOrder { lowest_pair_first, whole_sweeps };
  struct Options {
    MergeOrder order = MergeOrder::lowest_pair_first;
    // A merge listed twice: tokenizers and encoder.py keep its last rank (a map filled in order),
    // llama.cpp its first.
    bool repeated_merge_keeps_last = true;
  };

  // pieces: id -> piece (ids 0..n-1). Add the merges with add_merge, in rank order. Throws
  // FormatError (prefixed by `where`) when a piece appears twice.
  BpeModel(std::vector<std::string> pieces, const std::string& where, Options options);
  // The same with the index already built over `pieces` (PieceIndex::build found no repeat).
  BpeModel(std::vector<std::string> pieces, PieceIndex index, const std::string& where, Options options);
  // vocab: piece -> id (ids 0..n-1 with no gaps); merges in rank order (earlier = applied first).
  // Throws FormatError (prefixed by `where`) when a merge names a piece missing from the vocabulary
  // or an id is duplicated or out of range.
  BpeModel(const std::unordered_map<std::string, int>& vocab, const std::vector<std::pair<std::string, std::string>>& merges,
           const std::string& where, Options options);
  ~BpeModel() override;

  // The next merge rank: left + right -> the piece left + right. Throws FormatError naming the
  // merge's index when one of the three pieces is not in the vocabulary.
  void add_merge(std::string_view left, std::string_view right);
  // add_merge for each, in order; the lookups of the next merges start early, so that a table of
  // 150k merges does not wait on memory one lookup at a time.
  void add_merges(const std::vector<std::pair<std::string_view, std::string_view>>& merges);
  void reserve_merges(size_t n) { pairs_.reserve(n); }

  bool byte_fallback = false;  // a code point with no piece becomes its <0xHH> pieces
  bool ignore_merges = false;  // a word that is itself a piece is emitted whole (Llama 3)
  bool fuse_unk = false;       // consecutive unknown code points become one unknown token
  int unk_id = -1;             // used for a missing code point when there is no byte fallback

  // Appends the ids of one pre-tokenized word. Throws InputError when a code point has no piece,
  // no byte fallback and no unknown token (tokenizers drops it silently).
  void encode_word(std::string_view word, std::vector<int>& out) const override;

  int size() const override { return static_cast<int>(pieces_.size()); }
  const std::string& piece(int id) const override { return pieces_.at(size_t(id)); }
  int id_of(const std::string& piece) const override { return index_.find(pieces_, piece); }
  int find(std::string_view piece) const { return index_.find(pieces_, piece); }  // id_of without a string
  size_t merge_count() const { return merges_added_; }

 private:
  void build_index(const std::string& where);
  void find_byte_pieces();
  void merge(std::vector<int>& ids) const;  // the symbols' ids, merged in place
  bool is_join(int id, std::string_view left, std::string_view right) const;  // piece id == left + right
  void add_merge(std::string_view left, std::string_view right, uint64_t left_hash, uint64_t right_hash);

  std::vector<std::string> pieces_;
  PieceIndex index_;
  PairTable pairs_;
  std::string where_;
  Options options_;
  size_t merges_added_ = 0;
  int merged_guess_ = -1;  // add_merge: the id the next merge's piece probably has
  int byte_ids_[256];  // id of "<0xHH>", or -1
  struct Cache;
  std::unique_ptr<Cache> cache_;
};

}  // namespace hs
