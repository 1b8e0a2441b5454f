#include "core/text/unigram_model.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {

UnigramModel::UnigramModel(std::vector<std::string> pieces, std::vector<double> scores, std::vector<UnigramRole> roles,
                           int unk_id, bool byte_fallback, Flavor flavor, const std::string& where)
    : pieces_(std::move(pieces)), scores_(std::move(scores)), roles_(std::move(roles)), unk_id_(unk_id),
      byte_fallback_(byte_fallback), flavor_(flavor) {
  if (scores_.size() != pieces_.size() || roles_.size() != pieces_.size()) {
    throw FormatError(where + ": the Unigram vocabulary has " + std::to_string(pieces_.size()) + " pieces but " +
                      std::to_string(scores_.size()) + " scores");
  }
  if (unk_id_ < -1 || unk_id_ >= int(pieces_.size())) {
    throw FormatError(where + ": the Unigram unk_id " + std::to_string(unk_id_) + " is outside the vocabulary of " +
                      std::to_string(pieces_.size()) + " pieces");
  }
  const bool spm = flavor_ == Flavor::sentencepiece;
  std::vector<std::pair<std::string, int>> entries;
  entries.reserve(pieces_.size());
  double min_score = std::numeric_limits<double>::infinity();
  float spm_min = FLT_MAX, spm_max = FLT_MIN;  // unigram_model.cc's initial values
  for (size_t id = 0; id < pieces_.size(); ++id) {
    if (!std::isfinite(scores_[id])) {
      throw FormatError(where + ": the score of piece " + std::to_string(id) + " (\"" + utf8_repair(pieces_[id]) + "\") is not a finite number");
    }
    if (spm) {
      scores_[id] = double(float(scores_[id]));
      if (roles_[id] == UnigramRole::normal) {
        spm_min = std::min(spm_min, float(scores_[id]));
        spm_max = std::max(spm_max, float(scores_[id]));
      }
      if (roles_[id] == UnigramRole::reserved || roles_[id] == UnigramRole::unused) continue;
    } else {
      min_score = std::min(min_score, scores_[id]);
    }
    entries.emplace_back(pieces_[id], int(id));
  }
  ids_.reserve(pieces_.size());
  for (size_t id = 0; id < pieces_.size(); ++id) {
    if (spm) ids_.emplace(pieces_[id], int(id));  // SentencePiece refuses repeats before this
    else ids_[pieces_[id]] = int(id);             // Hugging Face: the last of repeated pieces
  }
  trie_ = PieceTrie(std::move(entries));
  if (spm) {
    unk_score_ = double(spm_min - 10.0f);
    max_score_ = spm_max;
  } else {
    unk_score_ = (pieces_.empty() ? 0.0 : min_score) - 10.0;
  }
}

int UnigramModel::id_of(const std::string& piece) const {
  const auto it = ids_.find(piece);
  return it == ids_.end() ? -1 : it->second;
}

double UnigramModel::lattice_score(int id, size_t length) const {
  if (flavor_ == Flavor::sentencepiece && roles_[size_t(id)] == UnigramRole::user_defined) {
    return double(float(length) * max_score_) - 0.1;  // as unigram_model.cc: a float product, a double difference
  }
  return scores_[size_t(id)];
}

void UnigramModel::encode_word(std::string_view word, std::vector<int>& out) const {
  const size_t n = word.size();
  if (n == 0) return;
  struct Best {
    double score = 0.0;
    size_t start = size_t(-1);  // none yet
    int id = -1;
  };
  std::vector<Best> best(n + 1);
  const bool spm = flavor_ == Flavor::sentencepiece;
  const auto offer = [&](size_t end, size_t start, int id, double score) {
    Best& b = best[end];
    const double candidate = score + best[start].score;
    if (b.start == size_t(-1) || candidate > b.score) {
      b.score = spm ? double(float(candidate)) : candidate;  // SentencePiece keeps float path scores
      b.start = start;
      b.id = id;
    }
  };
  for (size_t start = 0; start < n;) {
    size_t char_len = 1;
    utf8_decode(word, start, char_len);
    char_len = std::min(char_len, n - start);
    bool has_single = false;
    trie_.prefixes(word, start, [&](size_t length, int id) {
      if (spm && roles_[size_t(id)] == UnigramRole::unused) return;
      offer(start + length, start, id, lattice_score(id, length));
      if (length == char_len) has_single = true;
    });
    if (!has_single) offer(start + char_len, start, unk_id_, unk_score_);
    start += char_len;
  }
  // Read the path back from the end, then fuse runs of unknown tokens.
  struct Token {
    size_t start, end;
    int id;
  };
  std::vector<Token> path;
  for (size_t end = n; end > 0;) {
    const Best& b = best[end];
    path.push_back({b.start, end, b.id});
    end = b.start;
  }
  std::reverse(path.begin(), path.end());
  for (size_t i = 0; i < path.size();) {
    if (path[i].id != unk_id_ || unk_id_ < 0) {
      if (path[i].id < 0) {
        throw InputError("the Unigram tokenizer cannot encode \"" + std::string(word.substr(path[i].start, path[i].end - path[i].start)) +
                         "\": no such piece and no unknown token");
      }
      out.push_back(path[i].id);
      ++i;
      continue;
    }
    size_t j = i;
    while (j < path.size() && path[j].id == unk_id_) ++j;
    const std::string fused(word.substr(path[i].start, path[j - 1].end - path[i].start));
    i = j;
    if (!spm) {
      if (const int id = id_of(fused); id >= 0) {
        out.push_back(id);
        continue;
      }
    }
    if (byte_fallback_ && append_byte_pieces(*this, fused, out)) continue;
    out.push_back(unk_id_);
  }
}

}  // namespace hs
