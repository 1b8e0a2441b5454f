#pragma once
// Next-token predictions on request. The app shows the model's prediction after the position
// under the pointer (and after the last token), never all T at once, while the output projection
// is the largest product of a small model (151,936 x 896 per position for Qwen2.5-0.5B: ~70 of
// ~250 GFLOP at T = 256). A run made with RunOptions::all_next_tokens false predicts only after
// its last position and keeps the final hidden rows here; a position's prediction is computed
// the first time it is asked for (next_token_id), one row of the projection, and kept.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/model/model_run.h"
#include "core/model/transformer_model.h"
#include "core/text/tokenizer_base.h"

namespace hs {

class NextTokenRows {
 public:
  // hidden: final hidden rows [T, d_model]; known: [T] ids already predicted (-1: not yet; the
  // row of hidden is then needed, the others may hold anything).
  NextTokenRows(std::shared_ptr<const TransformerModel> model, std::shared_ptr<const SubwordTokenizer> tokenizer,
                Map hidden, std::vector<int> known);

  int size() const { return static_cast<int>(known_.size()); }
  // The greedy next token after `position` (0 <= position < size()), computed once. Thread-safe.
  int id(int position) const;
  std::string label(int position) const;
  // Ids predicted so far (-1: not yet), and the rows of hidden (for a run that extends this one).
  std::vector<int> known() const;
  const Map& hidden() const { return hidden_; }
  // Rows that went through the output projection here (tests: only the positions asked for).
  int64_t rows_computed() const;
  // The labels of the predictions computed here so far (the app's font atlas adds their characters).
  std::vector<std::string> asked_labels() const;

 private:
  std::shared_ptr<const TransformerModel> model_;
  std::shared_ptr<const SubwordTokenizer> tokenizer_;
  Map hidden_;  // [T, d_model]
  mutable std::mutex mutex_;
  mutable std::vector<int> known_;
  mutable std::vector<int> asked_;  // positions computed here, in order
};

// The prediction after `position` in `run`: its next_token_ids entry, else computed from the
// run's NextTokenRows; -1 when the run predicts nothing there (encoders, maps from a file).
int next_token_id(const AttentionRun& run, int position);
// Its label ("" when none).
std::string next_token_label(const AttentionRun& run, int position);

}  // namespace hs
