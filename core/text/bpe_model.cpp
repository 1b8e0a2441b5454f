#include "core/text/bpe_model.h"

#include <climits>
#include <cstdio>

#include "core/util/utf8.h"
#include "core/util/errors.h"

namespace hs {
namespace {

std::string pair_key(const std::string& a, const std::string& b) {
  std::string k = a;
  k += '\0';
  k += b;
  return k;
}

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

BpeModel::BpeModel(std::unordered_map<std::string, int> vocab,
                   const std::vector<std::pair<std::string, std::string>>& merges, const std::string& where)
    : vocab_(std::move(vocab)), pieces_(vocab_.size()) {
  std::vector<bool> seen(vocab_.size(), false);
  for (const auto& [piece, id] : vocab_) {
    if (id < 0 || size_t(id) >= vocab_.size()) {
      throw FormatError(where + ": piece \"" + utf8_repair(piece) + "\" has id " + std::to_string(id) + "; expected 0.." +
                        std::to_string(vocab_.size() - 1) + " (ids must number the vocabulary without gaps)");
    }
    if (seen[size_t(id)]) throw FormatError(where + ": id " + std::to_string(id) + " is given to two pieces");
    seen[size_t(id)] = true;
    pieces_[size_t(id)] = piece;
  }
  ranks_.reserve(merges.size());
  for (size_t r = 0; r < merges.size(); ++r) {
    const auto& [a, b] = merges[r];
    if (!vocab_.count(a) || !vocab_.count(b) || !vocab_.count(a + b)) {
      throw FormatError(where + ": merge " + std::to_string(r) + " (\"" + utf8_repair(a) + "\" \"" + utf8_repair(b) +
                        "\") uses a piece that is not in the vocabulary");
    }
    ranks_.emplace(pair_key(a, b), static_cast<int>(r));  // a repeated merge keeps its first rank
  }
}

int BpeModel::id_of(const std::string& piece) const {
  const auto it = vocab_.find(piece);
  return it == vocab_.end() ? -1 : it->second;
}

void BpeModel::encode_word(std::string_view word, std::vector<int>& out) const {
  if (word.empty()) return;
  if (ignore_merges) {
    if (const int id = id_of(std::string(word)); id >= 0) {
      out.push_back(id);
      return;
    }
  }
  std::vector<std::string> symbols;  // one per code point (the input is valid UTF-8)
  for (size_t pos = 0; pos < word.size();) {
    size_t len = 1;
    utf8_decode(word, pos, len);
    symbols.emplace_back(word.substr(pos, len));
    pos += len;
  }
  // encoder.py's loop: find the lowest-ranked adjacent pair, merge all its occurrences.
  while (symbols.size() > 1) {
    int best = INT_MAX;
    size_t best_i = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = ranks_.find(pair_key(symbols[i], symbols[i + 1]));
      if (it != ranks_.end() && it->second < best) {
        best = it->second;
        best_i = i;
      }
    }
    if (best == INT_MAX) break;
    const std::string a = symbols[best_i], b = symbols[best_i + 1];
    std::vector<std::string> merged;
    merged.reserve(symbols.size());
    for (size_t i = 0; i < symbols.size();) {
      if (i + 1 < symbols.size() && symbols[i] == a && symbols[i + 1] == b) {
        merged.push_back(a + b);
        i += 2;
      } else {
        merged.push_back(std::move(symbols[i]));
        i += 1;
      }
    }
    symbols = std::move(merged);
  }
  for (const std::string& s : symbols) {
    if (const int id = id_of(s); id >= 0) {
      out.push_back(id);
    } else if (byte_fallback && append_byte_pieces(*this, s, out)) {
    } else if (unk_id >= 0) {
      out.push_back(unk_id);
    } else {
      throw InputError("the tokenizer cannot encode \"" + s + "\": no such piece and no unknown token");
    }
  }
}

}  // namespace hs
