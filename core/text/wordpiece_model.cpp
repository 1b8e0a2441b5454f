#include "core/text/wordpiece_model.h"

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {

WordPieceModel::WordPieceModel(std::vector<std::string> pieces, std::string unk_token, std::string continuing_prefix,
                               int max_input_chars_per_word, const std::string& where)
    : pieces_(std::move(pieces)), prefix_(std::move(continuing_prefix)), max_chars_(max_input_chars_per_word) {
  ids_.reserve(pieces_.size());
  for (size_t id = 0; id < pieces_.size(); ++id) ids_[pieces_[id]] = int(id);  // a repeated piece: the last id
  unk_id_ = id_of(unk_token);
  if (unk_id_ < 0) throw FormatError(where + ": the WordPiece unknown token \"" + utf8_repair(unk_token) + "\" is not in the vocabulary");
}

int WordPieceModel::id_of(const std::string& piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

void WordPieceModel::encode_word(std::string_view word, std::vector<int>& out) const {
  if (word.empty()) return;
  if (utf8_length(word) > size_t(max_chars_ < 0 ? 0 : max_chars_)) {
    out.push_back(unk_id_);
    return;
  }
  // Code point boundaries, so that the candidate end moves back one character at a time.
  std::vector<size_t> bounds{0};
  for (size_t pos = 0; pos < word.size();) {
    size_t len = 1;
    utf8_decode(word, pos, len);
    pos += len;
    bounds.push_back(pos);
  }
  const size_t start_count = out.size();
  std::string candidate;
  size_t start = 0;  // index into bounds
  while (start + 1 < bounds.size()) {
    int found = -1;
    size_t end = bounds.size() - 1;
    for (; end > start; --end) {
      candidate.assign(start > 0 ? prefix_ : std::string());
      candidate.append(word.substr(bounds[start], bounds[end] - bounds[start]));
      if ((found = id_of(candidate)) >= 0) break;
    }
    if (found < 0) {  // no piece starts here: the whole word is unknown
      out.resize(start_count);
      out.push_back(unk_id_);
      return;
    }
    out.push_back(found);
    start = end;
  }
}

}  // namespace hs
