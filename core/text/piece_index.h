#pragma once
// Flat lookup tables for large vocabularies (150k-260k pieces, as many merges), built without a
// heap node per entry:
//   PieceIndex  piece -> id: open addressing (linear probing) over ids, each slot keeping part of
//               the piece's hash so that most misses compare no bytes. The pieces themselves stay
//               in the model's id -> piece table, which each call passes in.
//   PairTable   (left id, right id) -> (rank, merged id): open addressing over 64-bit keys.
// Both keep the table at most half full.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

class PieceIndex {
 public:
  // Indexes pieces[0 .. n). Returns -1, or the first id whose piece repeats an earlier one (that
  // id is left out; lookups give the earlier id).
  int build(const std::vector<std::string>& pieces);
  // The id of `piece`, or -1. `pieces` must be the vector build() was given.
  int find(const std::vector<std::string>& pieces, std::string_view piece) const;
  // Many lookups in a row (a 150k-merge table): hash each piece once, start loading the slot
  // where its search begins (prefetch) and then the piece that slot names (prefetch_piece) some
  // lookups ahead, then find() with the hash; the same answer as find() above.
  static uint64_t hash(std::string_view piece);
  void prefetch(uint64_t hash) const;
  void prefetch_piece(const std::vector<std::string>& pieces, uint64_t hash) const;
  int find(const std::vector<std::string>& pieces, std::string_view piece, uint64_t hash) const;

 private:
  struct Slot {
    uint32_t hash = 0;
    int32_t id = -1;  // -1: empty
  };
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

struct PairEntry {
  int32_t rank = -1;    // -1: no such pair
  int32_t merged = -1;  // id of the merged piece
};

class PairTable {
 public:
  void reserve(size_t pairs);
  // Sets the pair's entry (replacing an earlier one when `replace`); returns true when it was new.
  bool insert(int32_t left, int32_t right, PairEntry entry, bool replace);
  PairEntry find(int32_t left, int32_t right) const;
  size_t size() const { return count_; }

 private:
  struct Slot {
    uint64_t key = kEmpty;
    PairEntry entry;
  };
  static constexpr uint64_t kEmpty = ~uint64_t(0);
  void grow();
  std::vector<Slot> slots_;
  size_t mask_ = 0, count_ = 0;
};

}  // namespace hs
