#include "core/model/next_token_rows.h"

#include <cassert>

namespace hs {

NextTokenRows::NextTokenRows(std::shared_ptr<const TransformerModel> model,
                             std::shared_ptr<const SubwordTokenizer> tokenizer, Map hidden, std::vector<int> known)
    : model_(std::move(model)), tokenizer_(std::move(tokenizer)), hidden_(std::move(hidden)), known_(std::move(known)) {
  assert(hidden_.rows() == Eigen::Index(known_.size()) && "one hidden row per position");
}

int NextTokenRows::id(int position) const {
  assert(position >= 0 && position < size() && "a position of the run");
  const std::lock_guard<std::mutex> lock(mutex_);
  int& id = known_[size_t(position)];
  if (id < 0) {
    id = model_->next_token_ids(hidden_.middleRows(position, 1), 1)[0];  // argmax of logits [1, vocab]
    asked_.push_back(position);
  }
  return id;
}

std::vector<std::string> NextTokenRows::asked_labels() const {
  std::vector<int> ids;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    for (const int p : asked_) ids.push_back(known_[size_t(p)]);
  }
  std::vector<std::string> out;
  for (const int id : ids) out.push_back(tokenizer_->label(id));
  return out;
}

std::string NextTokenRows::label(int position) const { return tokenizer_->label(id(position)); }

std::vector<int> NextTokenRows::known() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return known_;
}

int64_t NextTokenRows::rows_computed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return int64_t(asked_.size());
}

int next_token_id(const AttentionRun& run, int position) {
  if (position < 0 || size_t(position) >= run.next_token_ids.size()) return -1;
  const int id = run.next_token_ids[size_t(position)];
  if (id >= 0 || !run.next_token_rows) return id;
  return run.next_token_rows->id(position);
}

std::string next_token_label(const AttentionRun& run, int position) {
  if (position < 0 || size_t(position) >= run.next_tokens.size()) return "";
  if (run.next_token_ids[size_t(position)] >= 0 || !run.next_token_rows) return run.next_tokens[size_t(position)];
  return run.next_token_rows->label(position);
}

}  // namespace hs
