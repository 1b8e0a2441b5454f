#include "core/text/piece_index.h"

#include <functional>

namespace hs {
namespace {

// The smallest power of two >= 2 * n (>= 16): the table stays at most half full.
size_t table_size(size_t n) {
  size_t size = 16;
  while (size < 2 * n) size <<= 1;
  return size;
}

uint64_t hash_bytes(std::string_view s) { return std::hash<std::string_view>()(s); }

// Fibonacci hashing spreads the (left, right) keys, whose low bits are small ids.
uint64_t hash_pair(uint64_t key) { return (key * 0x9E3779B97F4A7C15ull) >> 17; }

}  // namespace

int PieceIndex::build(const std::vector<std::string>& pieces) {
  slots_.assign(table_size(pieces.size()), Slot{});
  mask_ = slots_.size() - 1;
  int repeated = -1;
  for (size_t id = 0; id < pieces.size(); ++id) {
    const uint64_t h = hash_bytes(pieces[id]);
    for (size_t i = size_t(h) & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.id < 0) {
        s = {uint32_t(h >> 32), int32_t(id)};
        break;
      }
      if (s.hash == uint32_t(h >> 32) && pieces[size_t(s.id)] == pieces[id]) {
        if (repeated < 0) repeated = int(id);
        break;
      }
    }
  }
  return repeated;
}

uint64_t PieceIndex::hash(std::string_view piece) { return hash_bytes(piece); }

void PieceIndex::prefetch(uint64_t hash) const {
  if (!slots_.empty()) __builtin_prefetch(&slots_[size_t(hash) & mask_]);
}

void PieceIndex::prefetch_piece(const std::vector<std::string>& pieces, uint64_t hash) const {
  if (slots_.empty()) return;
  const Slot& s = slots_[size_t(hash) & mask_];
  if (s.id >= 0) __builtin_prefetch(&pieces[size_t(s.id)]);
}

int PieceIndex::find(const std::vector<std::string>& pieces, std::string_view piece) const {
  return find(pieces, piece, hash_bytes(piece));
}

int PieceIndex::find(const std::vector<std::string>& pieces, std::string_view piece, uint64_t h) const {
  if (slots_.empty()) return -1;
  for (size_t i = size_t(h) & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.id < 0) return -1;
    if (s.hash == uint32_t(h >> 32) && pieces[size_t(s.id)] == piece) return s.id;
  }
}

void PairTable::reserve(size_t pairs) {
  if (table_size(pairs) <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(table_size(pairs), Slot{});
  mask_ = slots_.size() - 1;
  count_ = 0;
  for (const Slot& s : old)
    if (s.key != kEmpty) insert(int32_t(s.key >> 32), int32_t(uint32_t(s.key)), s.entry, true);
}

void PairTable::grow() { reserve(count_ * 2 + 8); }

bool PairTable::insert(int32_t left, int32_t right, PairEntry entry, bool replace) {
  if (2 * (count_ + 1) > slots_.size()) grow();
  const uint64_t key = (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
  for (size_t i = size_t(hash_pair(key)) & mask_;; i = (i + 1) & mask_) {
    Slot& s = slots_[i];
    if (s.key == kEmpty) {
      s = {key, entry};
      ++count_;
      return true;
    }
    if (s.key == key) {
      if (replace) s.entry = entry;
      return false;
    }
  }
}

PairEntry PairTable::find(int32_t left, int32_t right) const {
  if (slots_.empty()) return {};
  const uint64_t key = (uint64_t(uint32_t(left)) << 32) | uint32_t(right);
  for (size_t i = size_t(hash_pair(key)) & mask_;; i = (i + 1) & mask_) {
    const Slot& s = slots_[i];
    if (s.key == kEmpty) return {};
    if (s.key == key) return s.entry;
  }
}

}  // namespace hs
