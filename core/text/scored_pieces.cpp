#include "core/text/scored_pieces.h"

#include <cassert>
#include <cstdint>
#include <queue>

namespace hs {

ScoredPieces::ScoredPieces(std::vector<std::string> pieces, std::vector<float> scores, std::vector<bool> mergeable)
    : pieces_(std::move(pieces)), scores_(std::move(scores)) {
  assert(pieces_.size() == scores_.size() && "one score per piece");
  assert((mergeable.empty() || mergeable.size() == pieces_.size()) && "one flag per piece");
  ids_.reserve(pieces_.size());
  for (size_t id = 0; id < pieces_.size(); ++id)
    if (mergeable.empty() || mergeable[id]) ids_.emplace(pieces_[id], int(id));
}

int ScoredPieces::lookup(std::string_view text) const {
  const auto it = ids_.find(std::string(text));
  return it == ids_.end() ? -1 : it->second;
}

void ScoredPieces::merge(std::vector<ScoredSymbol>& symbols, float floor, CandidateHook on_candidate, void* context) const {
  // run.c rescans every pair after each merge: O(n^2), minutes for a pasted book. Here the
  // symbols are a linked list and the candidate pairs a heap keyed by (score, left position);
  // a candidate whose symbols changed since it was pushed is stale and skipped. Same result.
  const size_t n = symbols.size();
  if (n < 2) return;
  constexpr size_t kNone = size_t(-1);
  std::vector<size_t> next(n), prev(n);
  std::vector<uint32_t> version(n, 0);  // bumped when the symbol at a position changes or goes
  for (size_t i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : kNone, prev[i] = i > 0 ? i - 1 : kNone;
  struct Candidate {
    float score;
    size_t left, right;
    int id;
    uint32_t left_version, right_version;
  };
  const auto worse = [](const Candidate& a, const Candidate& b) {
    return a.score != b.score ? a.score < b.score : a.left > b.left;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(worse)> heap(worse);
  const auto push = [&](size_t left) {
    if (left == kNone || next[left] == kNone) return;
    const size_t right = next[left];
    if (symbols[left].frozen || symbols[right].frozen) return;
    const int id = lookup(symbols[left].text + symbols[right].text);
    if (id >= 0 && scores_[size_t(id)] > floor) {
      heap.push({scores_[size_t(id)], left, right, id, version[left], version[right]});
      if (on_candidate) on_candidate(context, id, symbols[left].text, symbols[right].text);
    }
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    if (next[c.left] != c.right || version[c.left] != c.left_version || version[c.right] != c.right_version) continue;
    symbols[c.left].text += symbols[c.right].text;
    symbols[c.left].id = c.id;
    ++version[c.left];
    ++version[c.right];
    next[c.left] = next[c.right];
    if (next[c.right] != kNone) prev[next[c.right]] = c.left;
    next[c.right] = kNone;
    push(prev[c.left]);
    push(c.left);
  }
  std::vector<ScoredSymbol> merged;
  for (size_t i = 0; i != kNone; i = next[i]) merged.push_back(std::move(symbols[i]));
  symbols = std::move(merged);
}

}  // namespace hs
