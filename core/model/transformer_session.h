#pragma once
// A pretrained model on one tokenized prompt, ready to run: optionally continues the prompt
// greedily (argmax) by `generate` tokens, then runs the whole sequence once with a MapRecorder
// on the observer hook, so every layer x head map covers prompt and continuation alike. An
// encoder (predicts_next_token() false) runs its input with the token types, predicts nothing,
// and cannot generate.
#include <memory>
#include <vector>

#include "core/model/model_request.h"
#include "core/model/special_tokens.h"
#include "core/model/transformer_model.h"
#include "core/text/tokenizer_base.h"

namespace hs {

class TransformerSession : public Prepared {
 public:
  // Throws InputError when the prompt is empty, holds ids outside the vocabulary, or is too
  // long for the model (prompt + generate > max positions). run() throws when whole maps would not
  // fit in memory (long-input mode holds none).
  TransformerSession(std::shared_ptr<const TransformerModel> model, std::shared_ptr<const SubwordTokenizer> tokenizer,
                     std::vector<int> prompt_ids, int generate);
  // The same with the input's token types, special tokens and sentence B (encoders). InputError
  // also when type ids do not fit the model (one per token, each below its type vocabulary),
  // or when an encoder is asked to generate.
  TransformerSession(std::shared_ptr<const TransformerModel> model, std::shared_ptr<const SubwordTokenizer> tokenizer,
                     EncodedText input, int generate);

  AttentionRun run(const RunOptions& options) const override;
  int64_t tokens() const override { return int64_t(prompt_.size()) + generate_; }
  int64_t maps() const override;
  // The model's vocabulary; BOS is the id the tokenizer puts before any text (llama2.c, Llama),
  // -1 when it adds none (GPT-2).
  Vocabulary vocabulary() const override;
  AttentionRun run_ids(const std::vector<int>& ids, const RunOptions& options) const override;

  // Said in every run's notes (a text cut to the model's context).
  void add_note(std::string note) { notes_.push_back(std::move(note)); }

  // Greedy continuation only (no maps, incremental with a key/value cache): the prompt followed
  // by `generate` argmax tokens.
  std::vector<int> continue_greedily() const;
  // Another model of the same vocabulary (a random-weight copy) on `ids`, with this tokenizer.
  std::unique_ptr<TransformerSession> with_model(std::shared_ptr<const TransformerModel> model, std::vector<int> ids) const {
    return std::make_unique<TransformerSession>(std::move(model), tokenizer_, std::move(ids), 0);
  }
  // The model itself (head ablation runs it with its own hook).
  const TransformerModel& model() const { return *model_; }
  const SubwordTokenizer& tokenizer() const { return *tokenizer_; }

 private:
  // run() on the whole sequence ids; with a cache, the keys and values of every layer go into it.
  AttentionRun run_whole(const std::vector<int>& ids, const RunOptions& options, PrefixCache* cache) const;
  // run() computing only rows P .. T-1; rows 0 .. P-1 come from the cache's run (same model, and
  // ids start with its first P ids).
  AttentionRun run_from_prefix(const std::vector<int>& ids, int P, const RunOptions& options, PrefixCache& cache) const;
  // The run's tokens, notes and input description (everything but maps and predictions).
  AttentionRun run_header(const std::vector<int>& ids) const;

  std::shared_ptr<const TransformerModel> model_;
  std::shared_ptr<const SubwordTokenizer> tokenizer_;
  std::vector<int> prompt_;
  EncodedText input_;  // prompt_ with its type ids, special tokens and sentence B
  int generate_;
  std::vector<std::string> notes_;
};

}  // namespace hs
