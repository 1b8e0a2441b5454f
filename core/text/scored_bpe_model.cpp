#include "core/text/scored_bpe_model.h"

#include <limits>
#include <utility>

#include "core/util/utf8.h"

namespace hs {

ScoredBpeModel::ScoredBpeModel(std::vector<std::string> pieces, std::vector<float> scores, std::vector<UnigramRole> roles,
                               int unk_id, bool byte_fallback)
    : roles_(std::move(roles)), unk_id_(unk_id), byte_fallback_(byte_fallback) {
  std::vector<bool> mergeable(pieces.size());
  std::vector<std::pair<std::string, int>> user_defined;
  for (size_t id = 0; id < pieces.size(); ++id) {
    mergeable[id] = roles_[id] != UnigramRole::reserved;
    if (roles_[id] == UnigramRole::user_defined) user_defined.emplace_back(pieces[id], int(id));
    ids_.emplace(pieces[id], int(id));
  }
  user_defined_ = PieceTrie(std::move(user_defined));
  vocab_ = ScoredPieces(std::move(pieces), std::move(scores), std::move(mergeable));
}

int ScoredBpeModel::id_of(const std::string& piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

void ScoredBpeModel::encode_word(std::string_view word, std::vector<int>& out) const {
  std::vector<ScoredSymbol> symbols;
  for (size_t pos = 0; pos < word.size();) {
    ScoredSymbol s;
    size_t len = user_defined_.longest_prefix(word, pos).first;
    s.frozen = len > 0;
    if (!s.frozen) utf8_decode(word, pos, len);
    s.text = std::string(word.substr(pos, len));
    symbols.push_back(std::move(s));
    pos += len;
  }
  // How each unused piece was last made (bpe_model.cc's rev_merge), to split it back.
  struct Record {
    const ScoredBpeModel* model;
    std::unordered_map<std::string, std::pair<std::string, std::string>> splits;
  } record{this, {}};
  vocab_.merge(
      symbols, -std::numeric_limits<float>::infinity(),
      [](void* context, int id, const std::string& left, const std::string& right) {
        auto* r = static_cast<Record*>(context);
        if (r->model->roles_[size_t(id)] == UnigramRole::unused) r->splits[left + right] = {left, right};
      },
      &record);
  std::vector<std::string> pieces;
  std::vector<std::string> stack;
  for (ScoredSymbol& s : symbols) {  // resegment unused pieces, depth first, left to right
    stack.assign(1, std::move(s.text));
    while (!stack.empty()) {
      std::string text = std::move(stack.back());
      stack.pop_back();
      const int id = id_of(text);
      const auto split = id >= 0 && roles_[size_t(id)] == UnigramRole::unused ? record.splits.find(text) : record.splits.end();
      if (split == record.splits.end()) {
        pieces.push_back(std::move(text));
      } else {
        stack.push_back(split->second.second);
        stack.push_back(split->second.first);
      }
    }
  }
  for (size_t i = 0; i < pieces.size();) {
    const int id = id_of(pieces[i]);
    if (id >= 0 && id != unk_id_) {
      out.push_back(id);
      ++i;
      continue;
    }
    if (byte_fallback_) {  // each unknown symbol alone
      if (!append_byte_pieces(*this, pieces[i], out)) out.push_back(unk_id_);
      ++i;
      continue;
    }
    while (i < pieces.size() && (id_of(pieces[i]) < 0 || id_of(pieces[i]) == unk_id_)) ++i;  // fused
    out.push_back(unk_id_);
  }
}

}  // namespace hs
