#include "core/text/llama2c_tokenizer.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <queue>

#include "core/formats/mapped_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// Byte value of a "<0xHH>" piece, or -1.
int byte_piece_value(const std::string& p) {
  if (p.size() != 6 || p.compare(0, 3, "<0x") != 0 || p[5] != '>') return -1;
  int v = 0;
  for (int i = 3; i < 5; ++i) {
    const char ch = p[size_t(i)];
    const int digit = (ch >= '0' && ch <= '9') ? ch - '0' : (ch >= 'A' && ch <= 'F') ? ch - 'A' + 10
                                                      : (ch >= 'a' && ch <= 'f') ? ch - 'a' + 10 : -1;
    if (digit < 0) return -1;
    v = v * 16 + digit;
  }
  return v;
}

}  // namespace

Llama2cTokenizer::Llama2cTokenizer(const std::string& path, int vocab_size) {
  const MappedFile f(path);
  const uint8_t* p = f.data();
  const size_t n = f.size();
  size_t pos = 0;
  auto need = [&](size_t bytes, const std::string& what) {
    if (n - pos < bytes) {
      throw FormatError(path + ": truncated at byte " + std::to_string(pos) + " while reading " + what + " (file has " +
                        std::to_string(n) + " bytes; the model's vocabulary has " + std::to_string(vocab_size) + " entries)");
    }
  };
  auto read_i32 = [&](const std::string& what) {
    need(4, what);
    int32_t v;
    std::memcpy(&v, p + pos, 4);
    pos += 4;
    return v;
  };
  // Ids 1 and 2 are <s> and </s> in every llama2.c vocabulary (encode starts with id 1).
  if (vocab_size <= kEos) {
    throw FormatError(path + ": the vocabulary has " + std::to_string(vocab_size) + " entries; a llama2.c tokenizer needs at "
                      "least 3 (<unk>, <s>, </s>)");
  }
  const int32_t max_len = read_i32("max_token_length");
  if (max_len <= 0 || max_len > (1 << 16)) {
    throw FormatError(path + ": max_token_length is " + std::to_string(max_len) + "; expected 1..65536 (is this a llama2.c tokenizer.bin?)");
  }
  pieces_.reserve(size_t(vocab_size));
  scores_.reserve(size_t(vocab_size));
  for (int id = 0; id < vocab_size; ++id) {
    const std::string entry = "entry " + std::to_string(id);
    need(4, entry + " score");
    float score;
    std::memcpy(&score, p + pos, 4);
    pos += 4;
    if (!std::isfinite(score)) throw FormatError(path + ": " + entry + " has a score that is not finite");
    const int32_t len = read_i32(entry + " length");
    if (len < 0 || len > max_len) {
      throw FormatError(path + ": " + entry + " has length " + std::to_string(len) + "; expected 0.." +
                        std::to_string(max_len) + " (max_token_length)");
    }
    need(size_t(len), entry + " bytes");
    pieces_.emplace_back(reinterpret_cast<const char*>(p + pos), size_t(len));
    scores_.push_back(score);
    pos += size_t(len);
  }
  if (pos != n) {
    throw FormatError(path + ": " + std::to_string(n - pos) + " bytes left after " + std::to_string(vocab_size) +
                      " entries; the tokenizer does not match the checkpoint's vocabulary size " + std::to_string(vocab_size));
  }
  // run.c looks pieces up by bsearch over the sorted vocabulary; with duplicates keep the first.
  for (int id = 0; id < vocab_size; ++id) ids_.emplace(pieces_[size_t(id)], id);
  if (lookup(" ") < 0) throw FormatError(path + ": the vocabulary has no \" \" piece (needed as run.c's dummy prefix)");
}

int Llama2cTokenizer::lookup(const std::string& s) const {
  const auto it = ids_.find(s);
  return it == ids_.end() ? -1 : it->second;
}

// run.c's byte fallback: byte b is piece b + 3, "<0xHH>". A vocabulary without those pieces
// cannot encode the byte: say so instead of reading past the table.
int Llama2cTokenizer::byte_fallback_id(unsigned char b) const {
  const int id = int(b) + 3;
  if (id >= vocab_size() || byte_piece_value(pieces_[size_t(id)]) != int(b)) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", b);
    throw InputError(std::string("this tokenizer has no piece for the byte ") + hex +
                     " (no byte-fallback piece <" + hex + "> at id " + std::to_string(id) + ")");
  }
  return id;
}

std::vector<int> Llama2cTokenizer::encode(std::string_view text) const {
  // run.c reads text as a C string: it ends at the first NUL.
  text = text.substr(0, text.find('\0'));
  std::vector<int> tokens{kBos};
  if (!text.empty()) {
    const int space = lookup(" ");
    if (space < 0) throw InputError("this tokenizer has no \" \" piece, which run.c's encoding starts every text with");
    tokens.push_back(space);
  }
  std::string buf;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) != 0x80) buf.clear();  // not a continuation byte: a new character starts
    buf += text[i];
    const bool next_continues = i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
    if (next_continues && buf.size() < 4) continue;
    const int id = lookup(buf);
    if (id >= 0) {
      tokens.push_back(id);
    } else {
      for (const char b : buf) tokens.push_back(byte_fallback_id(static_cast<unsigned char>(b)));
    }
    buf.clear();
  }
  // Greedy merges by score: the best-scoring mergeable adjacent pair first, leftmost on ties
  // (run.c rescans every pair after each merge: O(n^2), minutes for a pasted book). Here the
  // tokens are a linked list and the candidate pairs a heap keyed by (score, left position);
  // a candidate whose tokens changed since it was pushed is stale and skipped. Same result.
  const size_t n = tokens.size();
  std::vector<size_t> next(n), prev(n);  // kNone ends the list
  constexpr size_t kNone = size_t(-1);
  std::vector<uint32_t> version(n, 0);  // bumped when the token at a position changes or goes
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
    const int id = lookup(pieces_[size_t(tokens[left])] + pieces_[size_t(tokens[right])]);
    // run.c's scan starts from -1e10 and never takes a pair at or below it (nor a NaN score).
    if (id >= 0 && scores_[size_t(id)] > -1e10f) heap.push({scores_[size_t(id)], left, right, id, version[left], version[right]});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    if (next[c.left] != c.right || version[c.left] != c.left_version || version[c.right] != c.right_version) continue;
    tokens[c.left] = c.id;
    ++version[c.left];
    ++version[c.right];
    next[c.left] = next[c.right];
    if (next[c.right] != kNone) prev[next[c.right]] = c.left;
    next[c.right] = kNone;
    push(prev[c.left]);
    push(c.left);
  }
  std::vector<int> merged;
  for (size_t i = 0; i != kNone && n > 0; i = next[i]) merged.push_back(tokens[i]);
  return merged;
}

std::string Llama2cTokenizer::piece_bytes(int id) const {
  const std::string& p = pieces_.at(size_t(id));
  const int b = byte_piece_value(p);
  return b >= 0 ? std::string(1, static_cast<char>(b)) : p;
}

std::string Llama2cTokenizer::label(int id) const {
  if (id == kBos) return "<s>";
  if (id == kEos) return "</s>";
  return visible_label(piece_bytes(id));
}

std::string Llama2cTokenizer::decode(const std::vector<int>& ids) const {
  std::string out;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string piece = piece_bytes(ids[i]);
    if (i > 0 && ids[i - 1] == kBos && !piece.empty() && piece[0] == ' ') piece.erase(0, 1);
    if (i == 0 && ids[i] == kBos) continue;
    out += piece;
  }
  return out;
}

}  // namespace hs
