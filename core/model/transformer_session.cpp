#include "core/model/transformer_session.h"

#include <algorithm>
#include <cmath>

#include "core/formats/mapped_guard.h"
#include "core/model/attention_check.h"
#include "core/model/attention_layer.h"
#include "core/model/next_token_rows.h"
#include "core/model/prefix_cache.h"
#include "core/model/synthetic_model.h"
#include "core/model/transformer_ops.h"
#include "core/util/errors.h"

namespace hs {
namespace {

EncodedText plain_ids(std::vector<int> ids) {
  EncodedText t;
  t.ids = std::move(ids);
  return t;
}

}  // namespace

TransformerSession::TransformerSession(std::shared_ptr<const TransformerModel> model,
                                       std::shared_ptr<const SubwordTokenizer> tokenizer, std::vector<int> prompt_ids,
                                       int generate)
    : TransformerSession(std::move(model), std::move(tokenizer), plain_ids(std::move(prompt_ids)), generate) {}

TransformerSession::TransformerSession(std::shared_ptr<const TransformerModel> model,
                                       std::shared_ptr<const SubwordTokenizer> tokenizer, EncodedText input, int generate)
    : model_(std::move(model)), tokenizer_(std::move(tokenizer)), prompt_(input.ids), input_(std::move(input)),
      generate_(generate) {
  const ModelInfo& info = model_->info();
  if (generate_ < 0) throw InputError("--generate (" + std::to_string(generate_) + ") must be 0 or more");
  if (generate_ > 0 && !model_->predicts_next_token()) {
    throw InputError("--generate: " + info.name + " is an encoder (" + info.kind +
                     "), which predicts no next token; leave out --generate");
  }
  if (!input_.type_ids.empty()) {
    if (input_.type_ids.size() != prompt_.size()) {
      throw InputError(std::to_string(input_.type_ids.size()) + " token type ids for " + std::to_string(prompt_.size()) +
                       " tokens; give one per token");
    }
    const int types = model_->type_vocab_size();
    for (size_t i = 0; i < input_.type_ids.size(); ++i) {
      const int t = input_.type_ids[i];
      // A model without token types reads every token as type 0 (its tokenizer gives it none).
      if (t < 0 || (types > 0 && t >= types)) {
        throw InputError("token " + std::to_string(i) + " has type id " + std::to_string(t) + "; " + info.name +
                         " has " + std::to_string(types) + " token type" + (types == 1 ? "" : "s") + " (0.." +
                         std::to_string(std::max(0, types - 1)) + ")");
      }
    }
  }
  if (prompt_.empty()) throw InputError("the sentence is empty: type some text (" + info.name + " adds no start token)");
  for (size_t i = 0; i < prompt_.size(); ++i)
    if (prompt_[i] < 0 || prompt_[i] >= info.vocab_size) {
      throw InputError("token " + std::to_string(i) + " has id " + std::to_string(prompt_[i]) +
                       ", outside the model's vocabulary of " + std::to_string(info.vocab_size));
    }
  const int64_t total = int64_t(prompt_.size()) + generate_;
  const int64_t limit = std::min<int64_t>(model_->max_positions(), kMaxTokens);
  if (total > limit) {
    throw InputError("the sentence has " + std::to_string(prompt_.size()) + " tokens" +
                     (generate_ ? " and " + std::to_string(generate_) + " more to generate" : std::string()) + "; " +
                     info.name + " handles at most " + std::to_string(limit) + " positions");
  }
}

std::vector<int> TransformerSession::continue_greedily() const {
  std::vector<int> ids = prompt_;
  if (generate_ == 0) return ids;
  KvCache cache;  // each step runs only the newest token against the cached keys and values
  Map hidden = model_->forward_cached(prompt_, cache);  // [T, d]
  for (int g = 0; g < generate_; ++g) {
    ids.push_back(model_->next_token_ids(hidden.bottomRows(1), 1)[0]);  // argmax of logits [1, vocab]
    if (g + 1 < generate_) hidden = model_->forward_cached({ids.back()}, cache);
  }
  return ids;
}

int64_t TransformerSession::maps() const { return int64_t(model_->info().n_layers) * model_->info().n_heads; }

Prepared::Vocabulary TransformerSession::vocabulary() const {
  const std::vector<int> empty = tokenizer_->encode("");
  return {model_->info().vocab_size, empty.empty() ? -1 : empty.front(), std::min(model_->max_positions(), kMaxTokens)};
}

AttentionRun TransformerSession::run_ids(const std::vector<int>& ids, const RunOptions& options) const {
  return TransformerSession(model_, tokenizer_, ids, 0).run(options);
}

AttentionRun TransformerSession::run(const RunOptions& options) const {
  // A GGUF model's weights are read from its mapped file during the run: the file is checked
  // before and after, and a run that read a page of a file truncated meanwhile is discarded.
  return run_guarded([&]() -> AttentionRun {
    const std::vector<int> ids = continue_greedily();
    PrefixCache* cache = options.prefix_cache;
    if (!cache) return run_whole(ids, options, nullptr);
    cache->reused = -1;
    cache->filled = false;
    // Only a causal decoder's rows stay as they were when later tokens change.
    const bool cacheable = options.display_size == 0 && !options.observer && input_.type_ids.empty() &&
                           model_->info().causal && model_->predicts_next_token() && model_->records_cached_rows();
    if (!cacheable) {
      cache->clear();
      return run_whole(ids, options, nullptr);
    }
    if (cache->model == model_ && cache->keep_scores == options.keep_scores && cache->run &&
        cache->run->token_ids == cache->ids && int(cache->keys.size()) == model_->info().n_layers) {
      const int P = shared_prefix(ids, cache->ids);
      if (P > 0) return run_from_prefix(ids, P, options, *cache);
    }
    return run_whole(ids, options, cache);
  });
}

namespace {

// log p over the vocabulary from one row of logits: x - (max + log sum exp(x - max)), summed in double.
std::vector<float> log_softmax_row(const Map& logits, Eigen::Index row) {
  const float top = logits.row(row).maxCoeff();
  double sum = 0;
  for (Eigen::Index j = 0; j < logits.cols(); ++j) sum += std::exp(double(logits(row, j)) - double(top));
  const double norm = double(top) + std::log(sum);
  std::vector<float> out(static_cast<size_t>(logits.cols()));
  for (Eigen::Index j = 0; j < logits.cols(); ++j) out[size_t(j)] = float(double(logits(row, j)) - norm);
  return out;
}

// The next-token logits of the last min(2, n) rows of hidden [n, d] ([rows, vocab]; empty for a
// model that predicts nothing): both the end of the text's probabilities and the last position's
// prediction come from them, one pass over the output projection.
Map end_logits(const TransformerModel& model, const Map& hidden, int threads) {
  if (!model.predicts_next_token() || hidden.rows() == 0) return Map();
  return model.logits(hidden.bottomRows(std::min<Eigen::Index>(2, hidden.rows())), threads);
}

// The index of the largest entry of the last row of `logits` (ties to the lowest, as
// next_token_ids), -1 without logits.
int last_row_argmax(const Map& logits) {
  if (logits.rows() == 0) return -1;
  return argmax_rows(logits.bottomRows(1))[0];
}

// The end of the text's probabilities (AttentionRun::last_token_log_prob and the rest) from the
// logits of its last positions (end_logits: [rows, vocab], rows 1 or 2, the last row is position
// T - 1); `before`: log p after position T - 2 when `logits` holds only the last row (the prefix
// the run reused).
void add_end_log_probs(AttentionRun& run, const Map& logits, const std::shared_ptr<const std::vector<float>>& before) {
  const int T = static_cast<int>(run.token_ids.size());
  if (logits.rows() == 0 || T == 0) return;
  const Eigen::Index rows = logits.rows();
  auto end = std::make_shared<const std::vector<float>>(log_softmax_row(logits, rows - 1));
  if (!run.next_token_ids.empty()) run.next_token_log_prob = (*end)[size_t(run.next_token_ids.back())];
  const int last = run.token_ids[size_t(T - 1)];
  if (T >= 2 && rows == 2) run.last_token_log_prob = log_softmax_row(logits, 0)[size_t(last)];
  else if (T >= 2 && before && size_t(last) < before->size()) run.last_token_log_prob = (*before)[size_t(last)];
  run.end_log_probs = std::move(end);
}

// Only the last position's prediction now, the others on request (next_token_rows.h).
// hidden: [T, d] final hidden rows; known: [T] predictions already made (-1: none; the row of
// hidden is read only for those); last: the last position's prediction when already known from
// its logits (end_logits), else -1.
void predict_last(AttentionRun& run, const std::shared_ptr<const TransformerModel>& model,
                  const std::shared_ptr<const SubwordTokenizer>& tokenizer, Map hidden, std::vector<int> known,
                  int last, int threads) {
  if (known.empty()) return;
  if (known.back() < 0) {
    known.back() = last >= 0 ? last : model->next_token_ids(hidden.bottomRows(1), threads)[0];
    ++run.next_token_rows_run;
  }
  run.next_token_ids = known;
  if (std::find(known.begin(), known.end(), -1) != known.end()) {
    run.next_token_rows = std::make_shared<const NextTokenRows>(model, tokenizer, std::move(hidden), std::move(known));
  }
}

void label_next_tokens(AttentionRun& run, const SubwordTokenizer& tokenizer) {
  for (const int id : run.next_token_ids) run.next_tokens.push_back(id >= 0 ? tokenizer.label(id) : std::string());
}

}  // namespace

AttentionRun TransformerSession::run_header(const std::vector<int>& ids) const {
  AttentionRun run;
  run.info = model_->info();
  run.token_ids = ids;
  run.prompt_tokens = static_cast<int>(prompt_.size());
  run.notes = notes_;
  run.token_type_ids = input_.type_ids;
  run.segment_b_start = input_.segment_b_start;
  run.special_tokens = input_.special;
  for (const int id : ids) run.tokens.push_back(tokenizer_->label(id));
  return run;
}

AttentionRun TransformerSession::run_whole(const std::vector<int>& ids, const RunOptions& options,
                                           PrefixCache* cache) const {
  const ModelInfo& info = model_->info();
  const int T = static_cast<int>(ids.size());

  const bool compact = options.display_size > 0;  // long-input mode: no [T, T] map is held
  // The limit counts the maps held: every one, or in long-input mode the ones kept (RunOptions::keep).
  const int64_t held = compact ? options.keep.count(info.n_layers, info.n_heads) : int64_t(info.n_layers) * info.n_heads;
  if (held > 0) check_map_memory(T, held);
  MapRecorder recorder(compact ? 0 : info.n_layers, info.n_heads, options.keep_scores && !compact);
  CompactRecorder compact_recorder(compact ? info.n_layers : 0, info.n_heads, T, compact ? options.display_size : 1,
                                   options.keep, options.stream_rows);
  AttentionRowCheck compact_check(&compact_recorder);  // long-input mode: rows checked as they stream
  KeyValueRecorder key_values(cache ? info.n_layers : 0);
  ObserverPair pair(compact ? static_cast<Observer*>(&compact_check) : &recorder,
                    cache ? &key_values : options.observer);
  const bool typed = model_->type_vocab_size() > 0 && !input_.type_ids.empty();
  const Map hidden = typed ? model_->forward_segments(ids, input_.type_ids, &pair, options.threads)
                           : model_->forward(ids, &pair, options.threads);  // [T, d]
  // Probability rows or an error naming the layer and head, before anything is handed out.
  if (compact) compact_check.throw_if_bad(info.name);
  else check_attention_maps(recorder.attention, info.name);

  AttentionRun run = run_header(ids);
  // Next-token predictions: the logits when the observer asks for them, else only their argmax,
  // which a model computes without holding [T, vocab] (next_token_ids); none for encoders.
  const bool announce = options.observer && options.observer->wants(TensorKind::logits, -1, -1);
  const Map ends = end_logits(*model_, hidden, options.threads);  // [<= 2, vocab]
  if (!model_->predicts_next_token()) {
    // no next-token head
  } else if (announce) {
    const Map logits = model_->logits(hidden, options.threads);  // [T, vocab]
    options.observer->on_tensor(TensorKind::logits, -1, -1, logits);
    run.next_token_ids = argmax_rows(logits);
  } else if (options.all_next_tokens) {
    run.next_token_ids = model_->next_token_ids(hidden, options.threads);
    run.next_token_rows_run = T;
  } else {
    predict_last(run, model_, tokenizer_, hidden, std::vector<int>(size_t(T), -1), last_row_argmax(ends),
                 options.threads);
  }
  label_next_tokens(run, *tokenizer_);
  add_end_log_probs(run, ends, nullptr);
  if (compact) {
    std::vector<AttentionConfig> layers;
    for (int l = 0; l < info.n_layers; ++l) layers.push_back(layer_attention_config(info, l));
    take_compact(run, std::move(compact_recorder), std::move(layers));
  } else {
    run.attention = std::move(recorder.attention);
    run.scores = std::move(recorder.scores);
    run.queries = std::move(recorder.queries);
    run.keys = std::move(recorder.keys);
  }
  if (cache) {
    cache->clear();
    cache->model = model_;
    cache->keep_scores = options.keep_scores;
    cache->ids = ids;
    cache->keys = std::move(key_values.keys);
    cache->values = std::move(key_values.values);
    cache->filled = true;
  }
  return run;
}

AttentionRun TransformerSession::run_from_prefix(const std::vector<int>& ids, int P, const RunOptions& options,
                                                 PrefixCache& cache) const {
  const ModelInfo& info = model_->info();
  const AttentionRun& old = *cache.run;
  const int T = static_cast<int>(ids.size()), n = T - P, L = info.n_layers, H = info.n_heads;
  check_map_memory(T, int64_t(L) * H);
  // The new positions P .. T-1 against the prefix's keys and values.
  KvCache kv;
  kv.length = P;
  kv.ids.assign(ids.begin(), ids.begin() + P);
  kv.threads = options.threads;
  for (int l = 0; l < L; ++l) {
    kv.k.push_back(cache.keys[size_t(l)].topRows(P));  // [P, G*dh]
    kv.v.push_back(cache.values[size_t(l)].topRows(P));
  }
  CachedRows rows;  // [layer][head] [n, T]
  rows.keep_scores = options.keep_scores;
  kv.rows = &rows;
  Map hidden;  // [n, d]
  if (n > 0) hidden = model_->forward_cached(std::vector<int>(ids.begin() + P, ids.end()), kv);
  const Map ends = end_logits(*model_, hidden, options.threads);  // [<= 2, vocab]

  AttentionRun run = run_header(ids);
  assemble_prefix_maps(run, old, P, T, rows, options.keep_scores, kv.k, options.threads);
  check_attention_maps(run.attention, info.name, P);  // rows 0 .. P-1 were checked in the run that made them
  // The prefix's predictions: the old run's, with those it computed on request since.
  std::vector<int> known(old.next_token_ids.begin(), old.next_token_ids.begin() + P);
  if (old.next_token_rows) {
    const std::vector<int> asked = old.next_token_rows->known();
    for (int i = 0; i < P; ++i)
      if (known[size_t(i)] < 0) known[size_t(i)] = asked[size_t(i)];
  }
  if (options.all_next_tokens) {
    for (int i = 0; i < P; ++i)
      if (known[size_t(i)] < 0) known[size_t(i)] = next_token_id(old, i), ++run.next_token_rows_run;
    run.next_token_ids = std::move(known);
    if (n > 0) {
      const std::vector<int> next = model_->next_token_ids(hidden, options.threads);  // only the new positions
      run.next_token_ids.insert(run.next_token_ids.end(), next.begin(), next.end());
      run.next_token_rows_run += n;
    }
  } else {
    const Eigen::Index d = n > 0 ? hidden.cols() : old.next_token_rows ? old.next_token_rows->hidden().cols() : 0;
    Map rows_all = Map::Zero(T, d);  // [T, d]: the prefix's rows from the old run, then the new ones
    if (old.next_token_rows) rows_all.topRows(P) = old.next_token_rows->hidden().topRows(P);
    if (n > 0) rows_all.bottomRows(n) = hidden;
    known.resize(size_t(T), -1);
    predict_last(run, model_, tokenizer_, std::move(rows_all), std::move(known), last_row_argmax(ends),
                 options.threads);
  }
  label_next_tokens(run, *tokenizer_);
  // The old run's end is this run's position P - 1 only when the old run ended there.
  const bool old_ends_at_prefix = int(old.token_ids.size()) == P;
  if (n > 0) {
    add_end_log_probs(run, ends, old_ends_at_prefix ? old.end_log_probs : nullptr);
  } else if (old_ends_at_prefix) {
    run.last_token_log_prob = old.last_token_log_prob, run.next_token_log_prob = old.next_token_log_prob;
    run.end_log_probs = old.end_log_probs;
  }

  cache.ids = ids;
  cache.keys = std::move(kv.k);
  cache.values = std::move(kv.v);
  cache.run.reset();  // the caller keeps the new run (PrefixCache::keep)
  cache.reused = P;
  cache.filled = true;
  return run;
}

}  // namespace hs
