#include "core/text/piece_trie.h"

#include <algorithm>

namespace hs {

PieceTrie::PieceTrie(std::vector<std::pair<std::string, int>> entries) {
  // Sorted by piece (stable: of equal pieces the last given comes last and wins).
  std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  nodes_.push_back(Node{});
  // Breadth-first over ranges of the sorted entries that share a prefix of `depth` bytes: the
  // children of a node are the distinct next bytes of its range, in order. An explicit queue (no
  // recursion), so a piece of any length cannot exhaust the stack.
  struct Range {
    size_t begin, end, depth;
    uint32_t node;
  };
  std::vector<Range> queue{{0, entries.size(), 0, 0}};
  for (size_t q = 0; q < queue.size(); ++q) {
    const Range r = queue[q];
    size_t i = r.begin;
    for (; i < r.end && entries[i].first.size() == r.depth; ++i) {
      if (r.depth > 0) nodes_[r.node].value = entries[i].second;  // the last of equal pieces wins
    }
    nodes_[r.node].first_child = uint32_t(labels_.size());
    while (i < r.end) {
      const uint8_t label = static_cast<uint8_t>(entries[i].first[r.depth]);
      size_t j = i;
      while (j < r.end && static_cast<uint8_t>(entries[j].first[r.depth]) == label) ++j;
      const uint32_t child_node = uint32_t(nodes_.size());
      nodes_.push_back(Node{});
      labels_.push_back(label);
      children_.push_back(child_node);
      ++nodes_[r.node].child_count;
      queue.push_back({i, j, r.depth + 1, child_node});
      i = j;
    }
    if (q > 4096 && q * 2 > queue.size()) {  // drop the processed half: the queue stays O(width)
      queue.erase(queue.begin(), queue.begin() + std::ptrdiff_t(q + 1));
      q = size_t(-1);
    }
  }
}

int32_t PieceTrie::child(uint32_t node, uint8_t label) const {
  const Node& n = nodes_[node];
  const auto begin = labels_.begin() + n.first_child, end = begin + n.child_count;
  const auto it = std::lower_bound(begin, end, label);
  if (it == end || *it != label) return -1;
  return int32_t(children_[size_t(it - labels_.begin())]);
}

std::pair<size_t, int> PieceTrie::longest_prefix(std::string_view text, size_t pos) const {
  std::pair<size_t, int> best{0, -1};
  prefixes(text, pos, [&](size_t length, int value) { best = {length, value}; });
  return best;
}

}  // namespace hs
