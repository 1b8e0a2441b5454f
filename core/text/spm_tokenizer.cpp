#include "core/text/spm_tokenizer.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <limits>

#include "core/text/byte_piece.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

const std::string kSpace = "\xE2\x96\x81";  // ▁ U+2581, SentencePiece's escaped space

void replace_spaces(std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 2);
  for (const char c : s) {
    if (c == ' ') out += kSpace;
    else out += c;
  }
  s = std::move(out);
}

}  // namespace

SpmTokenizer::SpmTokenizer(std::vector<std::string> pieces, std::vector<float> scores, std::vector<int> types,
                           SpmOptions options)
    : types_(std::move(types)), options_(options) {
  assert(pieces.size() == scores.size() && pieces.size() == types_.size() && "one score and type per piece");
  for (int& b : byte_ids_) b = -1;
  for (bool& s : special_starts_) s = false;
  for (size_t id = 0; id < pieces.size(); ++id) {
    if (is_special_token_type(types_[id]) && !pieces[id].empty()) {
      specials_.push_back(int(id));
      special_starts_[static_cast<unsigned char>(pieces[id][0])] = true;
    }
    const int b = byte_piece_value(pieces[id]);
    if (b >= 0 && byte_ids_[b] < 0) byte_ids_[b] = int(id);
  }
  vocab_ = ScoredPieces(std::move(pieces), std::move(scores));
  std::stable_sort(specials_.begin(), specials_.end(),
                   [&](int a, int b) { return vocab_.piece(a).size() > vocab_.piece(b).size(); });
}

std::vector<int> SpmTokenizer::encode(std::string_view raw) const {
  const std::string text = utf8_repair(raw);
  std::vector<int> out;
  if (options_.add_bos && options_.bos >= 0) out.push_back(options_.bos);
  bool previous_special = true;  // llama.cpp: the first fragment gets the space prefix too
  size_t begin = 0;
  const auto flush = [&](size_t end) {
    if (end > begin) {
      encode_fragment((options_.add_space_prefix && previous_special ? " " : "") + text.substr(begin, end - begin), out);
      previous_special = false;
    }
  };
  for (size_t pos = 0; pos < text.size();) {
    int hit = -1;
    if (special_starts_[static_cast<unsigned char>(text[pos])]) {
      for (const int id : specials_) {
        const std::string& p = vocab_.piece(id);
        if (text.compare(pos, p.size(), p) == 0) {
          hit = id;
          break;
        }
      }
    }
    if (hit < 0) {
      ++pos;
      continue;
    }
    flush(pos);
    out.push_back(hit);
    previous_special = true;
    pos += vocab_.piece(hit).size();
    begin = pos;
  }
  flush(text.size());
  if (options_.add_eos && options_.eos >= 0) out.push_back(options_.eos);
  return out;
}

void SpmTokenizer::encode_fragment(std::string text, std::vector<int>& out) const {
  replace_spaces(text);
  std::vector<ScoredSymbol> symbols;  // one per character
  for (size_t pos = 0; pos < text.size();) {
    size_t len = 1;
    utf8_decode(text, pos, len);
    std::string ch = text.substr(pos, len);
    const int id = vocab_.lookup(ch);
    symbols.push_back({std::move(ch), id});
    pos += len;
  }
  vocab_.merge(symbols, -std::numeric_limits<float>::infinity());
  for (const ScoredSymbol& s : symbols) {
    if (s.id >= 0) {
      out.push_back(s.id);
      continue;
    }
    for (const char c : s.text) {
      const int b = byte_ids_[static_cast<unsigned char>(c)];
      if (b >= 0) {
        out.push_back(b);
      } else if (options_.unk >= 0) {
        out.push_back(options_.unk);
        break;  // one unknown token for the whole character
      } else {
        char hex[8];
        std::snprintf(hex, sizeof hex, "<0x%02X>", static_cast<unsigned char>(c));
        throw InputError("the tokenizer has no piece for \"" + s.text + "\", no byte piece " + hex + " and no unknown token");
      }
    }
  }
}

std::string SpmTokenizer::piece_bytes(int id) const {
  if (id < 0 || id >= vocab_size()) return "";
  const std::string& p = vocab_.piece(id);
  if (is_special_token_type(types_[size_t(id)])) return p;
  if (const int b = byte_piece_value(p); b >= 0) return std::string(1, static_cast<char>(b));
  std::string s;
  for (size_t pos = 0; pos < p.size();) {
    if (p.compare(pos, kSpace.size(), kSpace) == 0) {
      s += ' ';
      pos += kSpace.size();
    } else {
      s += p[pos++];
    }
  }
  return s;
}

std::string SpmTokenizer::label(int id) const {
  if (id >= 0 && id < vocab_size() && is_special_token_type(types_[size_t(id)])) return utf8_repair(vocab_.piece(id));
  return visible_label(piece_bytes(id));
}

}  // namespace hs
