#include "core/text/bpe_model.h"

#include <algorithm>
#include <cstdio>
#include <mutex>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

constexpr size_t kCacheWords = 10000;     // tokenizers' DEFAULT_CACHE_CAPACITY
constexpr size_t kCacheWordBytes = 256;  // longer words are not cached

// A symbol of the word being merged; id -1 once merged into its left neighbour.
struct Symbol {
  int id;
  int prev, next;  // indices of the neighbours, -1 at the ends
};

// A mergeable pair in the queue: the symbol at `pos` and its right neighbour.
struct Candidate {
  int rank, pos, merged;
  // std::push_heap keeps the largest first: "larger" here is the lower (rank, pos).
  bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

bool append_byte_pieces(const PieceModel& model, std::string_view text, std::vector<int>& out) {
  const size_t start = out.size();
  for (const char ch : text) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", static_cast<unsigned char>(ch));
    const int b = model.id_of(name);
    if (b < 0) {
      out.resize(start);
      return false;
    }
    out.push_back(b);
  }
  return true;
}

struct BpeModel::Cache {
  std::mutex mutex;
  std::unordered_map<std::string, std::vector<int>> words;
};

BpeModel::BpeModel(std::vector<std::string> pieces, const std::string& where, Options options)
    : pieces_(std::move(pieces)), where_(where), options_(options), cache_(std::make_unique<Cache>()) {
  build_index(where);
}

BpeModel::BpeModel(std::vector<std::string> pieces, PieceIndex index, const std::string& where, Options options)
    : pieces_(std::move(pieces)), index_(std::move(index)), where_(where), options_(options), cache_(std::make_unique<Cache>()) {
  find_byte_pieces();
}

BpeModel::BpeModel(const std::unordered_map<std::string, int>& vocab, const std::vector<std::pair<std::string, std::string>>& merges,
                   const std::string& where, Options options)
    : pieces_(vocab.size()), where_(where), options_(options), cache_(std::make_unique<Cache>()) {
  std::vector<bool> seen(vocab.size(), false);
  for (const auto& [piece, id] : vocab) {
    if (id < 0 || size_t(id) >= vocab.size()) {
      throw FormatError(where + ": piece \"" + utf8_repair(piece) + "\" has id " + std::to_string(id) + "; expected 0.." +
                        std::to_string(vocab.size() - 1) + " (ids must number the vocabulary without gaps)");
    }
    if (seen[size_t(id)]) throw FormatError(where + ": id " + std::to_string(id) + " is given to two pieces");
    seen[size_t(id)] = true;
    pieces_[size_t(id)] = piece;
  }
  build_index(where);
  reserve_merges(merges.size());
  for (const auto& [a, b] : merges) add_merge(a, b);
}

BpeModel::~BpeModel() = default;

void BpeModel::build_index(const std::string& where) {
  if (const int repeated = index_.build(pieces_); repeated >= 0) {
    throw FormatError(where + ": piece \"" + utf8_repair(pieces_[size_t(repeated)]) + "\" appears twice in the vocabulary");
  }
  find_byte_pieces();
}

void BpeModel::find_byte_pieces() {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids_[b] = index_.find(pieces_, name);
  }
}

bool BpeModel::is_join(int id, std::string_view left, std::string_view right) const {
  if (id < 0 || size_t(id) >= pieces_.size()) return false;
  const std::string& p = pieces_[size_t(id)];
  return p.size() == left.size() + right.size() && p.compare(0, left.size(), left) == 0 &&
         p.compare(left.size(), right.size(), right) == 0;
}

void BpeModel::add_merge(std::string_view left, std::string_view right) {
  add_merge(left, right, PieceIndex::hash(left), PieceIndex::hash(right));
}

void BpeModel::add_merges(const std::vector<std::pair<std::string_view, std::string_view>>& merges) {
  constexpr size_t kAhead = 16;  // merges whose slots are being loaded; their pieces from half-way
  const size_t n = merges.size();
  std::vector<uint64_t> hashes(2 * n);  // [left, right] of each merge
  for (size_t i = 0; i < n; ++i) {
    hashes[2 * i] = PieceIndex::hash(merges[i].first);
    hashes[2 * i + 1] = PieceIndex::hash(merges[i].second);
  }
  reserve_merges(merges_added_ + n);
  for (size_t i = 0; i < n; ++i) {
    if (i + kAhead < n) index_.prefetch(hashes[2 * (i + kAhead)]), index_.prefetch(hashes[2 * (i + kAhead) + 1]);
    if (i + kAhead / 2 < n) {
      index_.prefetch_piece(pieces_, hashes[2 * (i + kAhead / 2)]);
      index_.prefetch_piece(pieces_, hashes[2 * (i + kAhead / 2) + 1]);
    }
    add_merge(merges[i].first, merges[i].second, hashes[2 * i], hashes[2 * i + 1]);
  }
}

void BpeModel::add_merge(std::string_view left, std::string_view right, uint64_t left_hash, uint64_t right_hash) {
  // A trained BPE gives the piece of merge r the id after merge r - 1's (GPT-2, Qwen, Llama 3):
  // that guess is checked first, a sequential read instead of a random lookup. Pieces are unique,
  // so a hit is the id find() returns.
  int merged = merged_guess_;
  if (!is_join(merged, left, right)) {
    thread_local std::string joined;
    joined.assign(left);
    joined.append(right);
    merged = find(joined);
  }
  merged_guess_ = merged < 0 ? -1 : merged + 1;
  const int a = index_.find(pieces_, left, left_hash), b = index_.find(pieces_, right, right_hash);
  const int rank = int(merges_added_++);
  if (a < 0 || b < 0 || merged < 0) {
    throw FormatError(where_ + ": merge " + std::to_string(rank) + " (\"" + utf8_repair(left) + "\" \"" + utf8_repair(right) +
                      "\") uses a piece that is not in the vocabulary");
  }
  pairs_.insert(a, b, {rank, merged}, options_.repeated_merge_keeps_last);
}

void BpeModel::merge(std::vector<int>& ids) const {
  if (ids.size() < 2) return;
  thread_local std::vector<Symbol> symbols;
  thread_local std::vector<Candidate> queue;
  symbols.clear();
  queue.clear();
  const int n = int(ids.size());
  for (int i = 0; i < n; ++i) symbols.push_back({ids[size_t(i)], i - 1, i + 1 < n ? i + 1 : -1});
  const auto offer = [&](int pos) {  // queue the pair at pos, if it has a rank
    const Symbol& s = symbols[size_t(pos)];
    if (s.next < 0) return;
    const PairEntry e = pairs_.find(s.id, symbols[size_t(s.next)].id);
    if (e.rank < 0) return;
    queue.push_back({e.rank, pos, e.merged});
    std::push_heap(queue.begin(), queue.end());
  };
  const auto apply = [&](const Candidate& c) {  // merges c unless the queue entry is stale
    Symbol& s = symbols[size_t(c.pos)];
    if (s.id < 0 || s.next < 0) return;
    Symbol& right = symbols[size_t(s.next)];
    if (pairs_.find(s.id, right.id).merged != c.merged) return;
    s.id = c.merged;
    right.id = -1;
    s.next = right.next;
    if (s.next >= 0) symbols[size_t(s.next)].prev = c.pos;
    if (s.prev >= 0) offer(s.prev);
    offer(c.pos);
  };
  for (int i = 0; i + 1 < n; ++i) offer(i);
  thread_local std::vector<Candidate> sweep;
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end());
    const Candidate top = queue.back();
    queue.pop_back();
    if (options_.order == MergeOrder::lowest_pair_first) {
      apply(top);
      continue;
    }
    // whole_sweeps: every queued pair of this rank, left to right, before any pair the sweep forms
    // (a pair formed now never has this rank: its piece is longer than both of the merged pair's).
    sweep.assign(1, top);
    while (!queue.empty() && queue.front().rank == top.rank) {
      std::pop_heap(queue.begin(), queue.end());
      sweep.push_back(queue.back());
      queue.pop_back();
    }
    for (const Candidate& c : sweep) apply(c);
  }
  ids.clear();
  for (int i = 0; i >= 0; i = symbols[size_t(i)].next) ids.push_back(symbols[size_t(i)].id);
}

void BpeModel::encode_word(std::string_view word, std::vector<int>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    if (const int id = find(word); id >= 0) {
      out.push_back(id);
      return;
    }
  }
  const bool cacheable = word.size() < kCacheWordBytes;
  if (cacheable) {
    const std::lock_guard<std::mutex> lock(cache_->mutex);
    const auto it = cache_->words.find(std::string(word));
    if (it != cache_->words.end()) {
      out.insert(out.end(), it->second.begin(), it->second.end());
      return;
    }
  }
  thread_local std::vector<int> ids;
  ids.clear();
  int pending_unk = 0;  // unknown code points waiting (fused with fuse_unk)
  const auto flush_unk = [&]() {
    for (; pending_unk > 0; --pending_unk) ids.push_back(unk_id);
  };
  for (size_t pos = 0; pos < word.size();) {
    size_t len = 1;
    utf8_decode(word, pos, len);
    const std::string_view c = word.substr(pos, len);
    pos += len;
    if (const int id = find(c); id >= 0) {
      flush_unk();
      ids.push_back(id);
      continue;
    }
    if (byte_fallback && std::all_of(c.begin(), c.end(), [&](char b) { return byte_ids_[static_cast<unsigned char>(b)] >= 0; })) {
      // As tokenizers: the bytes go in without flushing a waiting unknown token.
      for (const char b : c) ids.push_back(byte_ids_[static_cast<unsigned char>(b)]);
      continue;
    }
    if (unk_id < 0) throw InputError("the tokenizer cannot encode \"" + utf8_repair(c) + "\": no such piece and no unknown token");
    if (!(fuse_unk && pending_unk > 0)) {
      flush_unk();
      pending_unk = 1;
    }
  }
  flush_unk();
  merge(ids);
  out.insert(out.end(), ids.begin(), ids.end());
  if (cacheable) {
    const std::lock_guard<std::mutex> lock(cache_->mutex);
    if (cache_->words.size() < kCacheWords) cache_->words.emplace(std::string(word), ids);
  }
}

}  // namespace hs
