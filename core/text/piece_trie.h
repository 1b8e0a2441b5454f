#pragma once
// A byte trie over a vocabulary's pieces, for the searches Unigram's lattice and SentencePiece's
// user-defined symbols need: every piece that is a prefix of the text at a position, shortest
// first, in one pass over the bytes (O(longest piece) per position, whatever the vocabulary size).
// Stored compactly (one node per distinct prefix, children as sorted byte labels) so that a
// 250,000-piece vocabulary costs a few megabytes.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hs {

class PieceTrie {
 public:
  PieceTrie() = default;
  // (piece, value) entries; empty pieces are ignored; a piece given twice keeps the last value.
  explicit PieceTrie(std::vector<std::pair<std::string, int>> entries);

  // Calls f(length, value) for each piece that text[pos..] starts with, shortest first.
  template <typename F>
  void prefixes(std::string_view text, size_t pos, F&& f) const;

  // The longest piece text[pos..] starts with: (length, value), or (0, -1) when none.
  std::pair<size_t, int> longest_prefix(std::string_view text, size_t pos) const;

  bool empty() const { return nodes_.size() <= 1; }

 private:
  struct Node {
    int32_t value = -1;          // the piece ending here, or -1
    uint32_t first_child = 0;    // index into labels_ / children_
    uint32_t child_count = 0;
  };
  int32_t child(uint32_t node, uint8_t label) const;

  std::vector<Node> nodes_;        // nodes_[0] is the root
  std::vector<uint8_t> labels_;    // sorted within each node's run
  std::vector<uint32_t> children_;
};

template <typename F>
void PieceTrie::prefixes(std::string_view text, size_t pos, F&& f) const {
  if (nodes_.empty()) return;
  uint32_t node = 0;
  for (size_t i = pos; i < text.size(); ++i) {
    const int32_t next = child(node, static_cast<uint8_t>(text[i]));
    if (next < 0) return;
    node = uint32_t(next);
    if (nodes_[node].value >= 0) f(i + 1 - pos, int(nodes_[node].value));
  }
}

}  // namespace hs
