#include "core/text/llama2c_tokenizer.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/formats/mapped_file.h"
#include "core/text/byte_piece.h"
#include "core/util/errors.h"

namespace hs {
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
  std::vector<std::string> pieces;
  std::vector<float> scores;
  pieces.reserve(size_t(vocab_size));
  scores.reserve(size_t(vocab_size));
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
    pieces.emplace_back(reinterpret_cast<const char*>(p + pos), size_t(len));
    scores.push_back(score);
    pos += size_t(len);
  }
  if (pos != n) {
    throw FormatError(path + ": " + std::to_string(n - pos) + " bytes left after " + std::to_string(vocab_size) +
                      " entries; the tokenizer does not match the checkpoint's vocabulary size " + std::to_string(vocab_size));
  }
  vocab_ = ScoredPieces(std::move(pieces), std::move(scores));
  if (vocab_.lookup(" ") < 0) throw FormatError(path + ": the vocabulary has no \" \" piece (needed as run.c's dummy prefix)");
}

int Llama2cTokenizer::count_entries(const std::string& path) {
  const MappedFile f(path);
  const uint8_t* p = f.data();
  const size_t n = f.size();
  size_t pos = 4;  // max_token_length
  int entries = 0;
  while (pos < n && entries < kMaxVocabSize) {
    int32_t len = -1;
    if (n - pos >= 8) std::memcpy(&len, p + pos + 4, 4);
    if (len < 0 || n - pos - 8 < size_t(len)) {
      throw FormatError(path + ": entry " + std::to_string(entries) + " at byte " + std::to_string(pos) +
                        " runs past the end of the file (is this a llama2.c tokenizer.bin?)");
    }
    pos += 8 + size_t(len);
    ++entries;
  }
  return entries;
}

int Llama2cTokenizer::byte_fallback_id(unsigned char b) const {
  const int id = int(b) + 3;
  if (id >= vocab_size() || byte_piece_value(vocab_.piece(id), true) != int(b)) {
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
  std::vector<ScoredSymbol> symbols;  // each symbol is a piece: its text is the piece's
  const auto add = [&](int id) { symbols.push_back({vocab_.piece(id), id}); };
  add(kBos);  // run.c merges over <s> too
  if (!text.empty()) {
    const int space = vocab_.lookup(" ");
    if (space < 0) throw InputError("this tokenizer has no \" \" piece, which run.c's encoding starts every text with");
    add(space);
  }
  std::string buf;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) != 0x80) buf.clear();  // not a continuation byte: a new character starts
    buf += text[i];
    const bool next_continues = i + 1 < text.size() && (static_cast<unsigned char>(text[i + 1]) & 0xC0) == 0x80;
    if (next_continues && buf.size() < 4) continue;
    const int id = vocab_.lookup(buf);
    if (id >= 0) {
      add(id);
    } else {
      for (const char b : buf) add(byte_fallback_id(static_cast<unsigned char>(b)));
    }
    buf.clear();
  }
  // Greedy merges by score; run.c's scan starts from -1e10 and never takes a pair at or below it.
  vocab_.merge(symbols, -1e10f);
  std::vector<int> tokens;
  tokens.reserve(symbols.size());
  for (const ScoredSymbol& s : symbols) tokens.push_back(s.id);
  return tokens;
}

std::string Llama2cTokenizer::piece_bytes(int id) const {
  const std::string& p = vocab_.piece(id);
  const int b = byte_piece_value(p, true);
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
