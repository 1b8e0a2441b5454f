#include "core/analysis/head_ablation.h"

#include <algorithm>
#include <cassert>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/analysis/head_list.h"
#include "core/formats/mapped_guard.h"
#include "core/model/context_editor.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// log p(token_a | row) and log p(token_b | row) (either -1: skipped) from one row of logits [n],
// the stable log-softmax z - max - log sum_j exp(z_j - max) with the log-sum-exp computed once: exp
// by the vectorised kernel (within 1e-6 relative of std::exp), summed in double, 4096 at a time.
std::pair<double, double> log_softmax_two(const float* row, Eigen::Index n, int token_a, int token_b) {
  const float m = Eigen::Map<const Eigen::VectorXf>(row, n).maxCoeff();
  constexpr Eigen::Index kChunk = 4096;
  float e[kChunk];
  double sum = 0;
  for (Eigen::Index j0 = 0; j0 < n; j0 += kChunk) {
    const Eigen::Index k = std::min(kChunk, n - j0);
    for (Eigen::Index j = 0; j < k; ++j) e[j] = row[j0 + j] - m;
    exp_floats(e, e, k);
    for (Eigen::Index j = 0; j < k; ++j) sum += double(e[j]);
  }
  const double lse = std::log(sum);
  const auto at = [&](int token) { return token < 0 ? 0.0 : double(row[token] - m) - lse; };
  return {at(token_a), at(token_b)};
}

// log p(token | row) from one row of logits (every pass, the intact one too, computes it so).
double log_softmax_at(const Eigen::Ref<const Eigen::Matrix<float, 1, Eigen::Dynamic>>& row, int token) {
  return log_softmax_two(row.data(), row.size(), token, -1).first;
}

// One pass's numbers: lp[t] = log p(ids[t+1]) under row t of the logits [T-1], the mean loss, and
// the measure (the mean loss, or the target's log-prob under row P).
struct AblationMeasured {
  Vec lp;
  double loss = 0;
  double measure = 0;
};

// The rows of logits a pass needs: every predicted token's, and the target's row P.
Eigen::Index logit_rows(const std::vector<int>& ids, const AblationTarget& target) {
  return std::max<Eigen::Index>(Eigen::Index(ids.size()) - 1, Eigen::Index(target.position) + 1);
}

// logits: [logit_rows(ids, target), vocab].
AblationMeasured ablation_measure(const Map& logits, const std::vector<int>& ids, const AblationTarget& target) {
  const Eigen::Index n = Eigen::Index(ids.size()) - 1;
  assert(logits.rows() >= logit_rows(ids, target) && "a row of logits per predicted token and the target's");
  AblationMeasured out;
  out.lp.resize(n);
  for (Eigen::Index t = 0; t < n; ++t) out.lp(t) = float(log_softmax_at(logits.row(t), ids[size_t(t + 1)]));
  out.loss = -double(out.lp.mean());
  if (!target.is_mean_loss() && target.token_id >= logits.cols()) {
    throw InputError("the target token id (" + std::to_string(target.token_id) + ") is outside the vocabulary (" +
                     std::to_string(logits.cols()) + " tokens)");
  }
  out.measure = target.is_mean_loss() ? out.loss : log_softmax_at(logits.row(target.position), target.token_id);
  return out;
}

// The measure alone from the target's one row of logits ([1, vocab]): lp empty, loss NaN.
AblationMeasured ablation_measure_one_row(const Map& logits, const AblationTarget& target) {
  assert(logits.rows() == 1 && !target.is_mean_loss() && "the target's row of logits");
  if (target.token_id >= logits.cols()) {
    throw InputError("the target token id (" + std::to_string(target.token_id) + ") is outside the vocabulary (" +
                     std::to_string(logits.cols()) + " tokens)");
  }
  AblationMeasured out;
  out.loss = std::numeric_limits<double>::quiet_NaN();
  out.measure = log_softmax_at(logits.row(0), target.token_id);
  return out;
}

// Intact run: remembers the mean over positions of every layer's contexts, edits nothing.
class ContextMeans : public ContextEditor {
 public:
  explicit ContextMeans(int n_layers) : means(size_t(n_layers)) {}
  void edit_contexts(int layer, Map& contexts) override { means[size_t(layer)] = contexts.colwise().mean(); }
  std::vector<Eigen::RowVectorXf> means;  // [layer] -> [H*dh]
};

// Intact run over reference texts: adds up every layer's contexts over positions (in double).
class ContextSums : public ContextEditor {
 public:
  explicit ContextSums(int n_layers) : sums(size_t(n_layers)) {}
  void edit_contexts(int layer, Map& contexts) override {
    const Eigen::RowVectorXd s = contexts.cast<double>().colwise().sum();  // [H*dh]
    Eigen::RowVectorXd& total = sums[size_t(layer)];
    if (total.size() == 0) total = s;
    else total += s;
  }
  std::vector<Eigen::RowVectorXd> sums;  // [layer] -> [H*dh]
};

// Knocks out a set of heads: their columns to 0, or to the given per-layer means.
class HeadKnockout : public ContextEditor {
 public:
  HeadKnockout(std::vector<HeadRef> heads, int d_head, const std::vector<Eigen::RowVectorXf>* means)
      : heads_(std::move(heads)), d_head_(d_head), means_(means) {}
  void edit_contexts(int layer, Map& contexts) override {
    for (const HeadRef& h : heads_) {
      if (h.layer != layer) continue;
      auto cols = contexts.middleCols(Eigen::Index(h.head) * d_head_, d_head_);  // [T, dh]
      if (means_) cols.rowwise() = (*means_)[size_t(layer)].segment(Eigen::Index(h.head) * d_head_, d_head_);
      else cols.setZero();
    }
  }
  int first_layer() const {
    int first = std::numeric_limits<int>::max();
    for (const HeadRef& h : heads_) first = std::min(first, h.layer);
    return first;
  }

 private:
  std::vector<HeadRef> heads_;
  int d_head_;
  const std::vector<Eigen::RowVectorXf>* means_;
};

// Knocks out one head per stacked variant: contexts [V*T, H*dh], variant v's rows v*T .. v*T + T - 1
// lose head heads[v]'s columns (to 0, or to that layer's mean).
class StackedKnockout : public ContextEditor {
 public:
  StackedKnockout(std::vector<HeadRef> heads, int seq_len, int d_head, const std::vector<Eigen::RowVectorXf>* means)
      : heads_(std::move(heads)), seq_len_(seq_len), d_head_(d_head), means_(means) {}
  void edit_contexts(int layer, Map& contexts) override {
    assert(contexts.rows() == Eigen::Index(heads_.size()) * seq_len_ && "a block of rows per variant");
    for (size_t v = 0; v < heads_.size(); ++v) {
      const HeadRef& h = heads_[v];
      if (h.layer != layer) continue;
      auto cols = contexts.block(Eigen::Index(v) * seq_len_, Eigen::Index(h.head) * d_head_, seq_len_, d_head_);  // [T, dh]
      if (means_) cols.rowwise() = (*means_)[size_t(layer)].segment(Eigen::Index(h.head) * d_head_, d_head_);
      else cols.setZero();
    }
  }

 private:
  std::vector<HeadRef> heads_;
  int seq_len_, d_head_;
  const std::vector<Eigen::RowVectorXf>* means_;
};

void check_ablation_input(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options) {
  const ModelInfo& info = model.info();
  if (ids.size() < 2) {
    throw InputError("ablation needs at least 2 tokens (a next token to predict); the input has " + std::to_string(ids.size()));
  }
  if (!model.predicts_next_token()) {
    throw InputError("ablation needs a language model that predicts the next token; " +
                     (info.name.empty() ? std::string("this model") : info.name) + " is an encoder");
  }
  const AblationTarget& t = options.target;
  if (!t.is_mean_loss()) {
    const int T = int(ids.size());
    if (t.position >= T) {
      throw InputError("the target position (" + std::to_string(t.position) + ") must be from 0 to " + std::to_string(T - 1) +
                       ": the input has " + std::to_string(T) + " tokens");
    }
    if (t.token_id < 0) throw InputError("the target token id (" + std::to_string(t.token_id) + ") must be 0 or more");
  }
  if (options.reference) {
    const auto& means = options.reference->means;
    if (int(means.size()) != info.n_layers ||
        std::any_of(means.begin(), means.end(), [&](const auto& m) { return m.size() != Eigen::Index(info.n_heads) * info.d_head; })) {
      throw InputError("the reference means are not this model's (" + std::to_string(means.size()) + " layers; expected " +
                       std::to_string(info.n_layers) + " of " + std::to_string(info.n_heads * info.d_head) + " numbers)");
    }
  }
}

// The intact run and what ablated passes start from. A model that runs layer by layer keeps the
// residual stream entering each layer, so a pass whose first knocked-out head is in layer l reruns
// only layers l .. L-1; every pass takes the same single-threaded path there, so knocking out a
// head that adds nothing gives exactly the intact numbers.
class AblationRunner {
 public:
  AblationRunner(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options)
      : model_(model),
        ids_(ids),
        target_(options.target),
        threads_(options.threads),
        measure_only_(options.logits == AblationLogits::measure_only && !options.target.is_mean_loss()),
        means_(model.info().n_layers) {
    const int L = model.info().n_layers;
    if (!model.runs_layers()) {
      const Map hidden = model.forward(ids, &means_, threads_);  // [T, d]
      base = ablation_measure(model.logits(hidden.topRows(logit_rows(ids, target_)), threads_), ids, target_);
      // measure_only: the intact measure from the one row too, as the knocked-out passes compute it
      // (a one-row product sums in another order than the [T, d] one), so a head that adds nothing changes it by 0.
      if (measure_only_) base.measure = measured(hidden, threads_).measure;
      return;
    }
    entering_.resize(size_t(L));
    Map x = model.embed_tokens(ids);  // [T, d]
    for (int l = 0; l < L; ++l) {
      entering_[size_t(l)] = x;
      model.run_layers(x, l, l + 1, &means_, 1);
    }
    const Map hidden = model.final_norm(x);  // [T, d]
    base = ablation_measure(model.logits(hidden.topRows(logit_rows(ids, target_)), 1), ids, target_);
    if (measure_only_) base.measure = measured(hidden, 1).measure;
  }
  // The per-layer means mean ablation uses: the reference's, or the sentence's own.
  const std::vector<Eigen::RowVectorXf>* means(const AblationOptions& o) const {
    if (o.mode != AblationMode::mean) return nullptr;
    return o.reference ? &o.reference->means : &means_.means;
  }
  // One pass with `knockout`; `threads`: 1 inside a parallel sweep.
  AblationMeasured run(HeadKnockout& knockout, int threads) const {
    if (!model_.runs_layers()) return measured(model_.forward(ids_, &knockout, threads), threads);
    const int from = knockout.first_layer();
    Map y = entering_[size_t(from)];
    model_.run_layers(y, from, model_.info().n_layers, &knockout, 1);
    // The final norm is row by row: with measure_only it sees the target's row alone.
    if (measure_only_) return measured(model_.final_norm(Map(y.middleRows(target_.position, 1))), 1, 0);
    return measured(model_.final_norm(y), 1);
  }
  // The heads of one layer knocked out as stacked variants (one head each) in one pass from the
  // stream entering that layer; empty when `cancelled` says stop between layers.
  std::vector<AblationMeasured> run_stacked(const std::vector<HeadRef>& heads, const std::vector<Eigen::RowVectorXf>* means,
                                            const std::function<bool()>& cancelled) const {
    const int from = heads.front().layer, T = int(ids_.size()), V = int(heads.size());
    for ([[maybe_unused]] const HeadRef& h : heads) assert(h.layer == from && "one layer's heads per stacked pass");
    const Map& entering = entering_[size_t(from)];  // [T, d]
    Map y(Eigen::Index(V) * T, entering.cols());     // [V*T, d]: variant v in rows v*T .. v*T + T - 1
    for (int v = 0; v < V; ++v) y.middleRows(Eigen::Index(v) * T, T) = entering;
    StackedKnockout knockout(heads, T, model_.info().d_head, means);
    for (int l = from; l < model_.info().n_layers; ++l) {
      if (cancelled && cancelled()) return {};
      model_.run_layers_stacked(y, T, l, l + 1, &knockout, 1);
    }
    return stacked_measured(y, V);
  }
  bool measure_only() const { return measure_only_; }
  AblationMeasured base;

 private:
  // hidden: [T, d] after the final norm; with measure_only the target's row is hidden's row `row`
  // (-1: row P of all T; 0: hidden is that row alone).
  AblationMeasured measured(const Map& hidden, int threads, int row = -1) const {
    if (measure_only_) {
      const Eigen::Index r = row < 0 ? Eigen::Index(target_.position) : Eigen::Index(row);
      return ablation_measure_one_row(model_.logits(Map(hidden.middleRows(r, 1)), threads), target_);
    }
    return ablation_measure(model_.logits(hidden.topRows(logit_rows(ids_, target_)), threads), ids_, target_);
  }

  // y: [V*T] rows of the last layer -> each variant's numbers. The rows the measure reads (the
  // target's row alone with measure_only, else logit_rows of each) go through the final norm and
  // the logits in blocks of at most kStackedLogitsBytes, each row reduced to its log-probs at once.
  std::vector<AblationMeasured> stacked_measured(const Map& y, int V) const {
    const Eigen::Index T = Eigen::Index(ids_.size()), R = measure_only_ ? 1 : logit_rows(ids_, target_);
    const Eigen::Index first = measure_only_ ? Eigen::Index(target_.position) : 0;
    Map rows(V * R, y.cols());  // [V*R, d]: variant v's rows first .. first + R - 1
    for (int v = 0; v < V; ++v) rows.middleRows(v * R, R) = y.middleRows(v * T + first, R);
    const Map hidden = model_.final_norm(rows);
    std::vector<AblationMeasured> out(static_cast<size_t>(V));
    for (AblationMeasured& m : out) {
      if (!measure_only_) m.lp.resize(T - 1);
      else m.loss = std::numeric_limits<double>::quiet_NaN();
    }
    const Eigen::Index vocab = std::max<Eigen::Index>(1, model_.info().vocab_size);
    // Blocks of equal rows (at most kStackedLogitsBytes each): 140 rows in two of 70, not 110 + 30.
    const Eigen::Index most = std::max<Eigen::Index>(1, kStackedLogitsBytes / (vocab * Eigen::Index(sizeof(float))));
    const Eigen::Index blocks = (hidden.rows() + most - 1) / most;
    const Eigen::Index block = (hidden.rows() + blocks - 1) / blocks;
    for (Eigen::Index r0 = 0; r0 < hidden.rows(); r0 += block) {
      const Map logits = model_.logits(Map(hidden.middleRows(r0, std::min(block, hidden.rows() - r0))), 1);  // [rows, vocab]
      for (Eigen::Index i = 0; i < logits.rows(); ++i) {
        AblationMeasured& m = out[size_t((r0 + i) / R)];
        const Eigen::Index t = first + (r0 + i) % R;  // the position whose prediction this row is
        const int next = !measure_only_ && t < T - 1 ? ids_[size_t(t + 1)] : -1;
        const int target = !target_.is_mean_loss() && t == target_.position ? target_.token_id : -1;
        const auto [lp, measure] = log_softmax_two(logits.row(i).data(), logits.cols(), next, target);
        if (next >= 0) m.lp(t) = float(lp);
        if (target >= 0) m.measure = measure;
      }
    }
    if (!measure_only_) {
      for (AblationMeasured& m : out) {
        m.loss = -double(m.lp.mean());
        if (target_.is_mean_loss()) m.measure = m.loss;
      }
    }
    return out;
  }

  const TransformerModel& model_;
  const std::vector<int>& ids_;
  AblationTarget target_;
  int threads_;
  bool measure_only_;
  ContextMeans means_;
  std::vector<Map> entering_;  // [layer] -> residual stream entering it, [T, d]
};

void check_ablation_group(const std::vector<HeadRef>& heads, const ModelInfo& info) {
  if (heads.empty()) throw InputError("a group ablation needs at least one head (LAYER.HEAD, e.g. 1.3)");
  check_head_list(heads, info.n_layers, info.n_heads);
  for (size_t i = 0; i < heads.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (heads[j] == heads[i]) throw InputError("head " + head_list_text({heads[i]}) + " is listed twice");
}

}  // namespace

const char* ablation_mode_name(AblationMode mode) { return mode == AblationMode::mean ? "mean" : "zero"; }

ContextMeanSet context_means(const TransformerModel& model, const std::vector<std::vector<int>>& texts, int threads,
                             const std::function<void(int, int)>& progress) {
  if (texts.empty()) throw InputError("mean ablation over a reference needs at least one text");
  const int L = model.info().n_layers;
  ContextSums sums(L);
  ContextMeanSet out;
  for (const std::vector<int>& ids : texts) {
    assert(!ids.empty() && "a reference text of at least one token");
    model.forward(ids, &sums, threads);
    out.positions += int64_t(ids.size());
    ++out.texts;
    if (progress) progress(out.texts, int(texts.size()));
  }
  out.means.resize(size_t(L));
  for (int l = 0; l < L; ++l) out.means[size_t(l)] = (sums.sums[size_t(l)] / double(out.positions)).cast<float>();
  return out;
}

namespace {

// The passes of a sweep: each a layer and a run of its heads [head0, head0 + count).
struct AblationPass {
  int layer = 0, head0 = 0, count = 1;
};

// A layer's heads per pass: as many as kStackedAblationBytes holds (rows of T floats_per_row
// floats each), and fewer when that leaves a thread without a pass (layers < threads).
std::vector<AblationPass> ablation_passes(const TransformerModel& model, int T, const AblationOptions& options) {
  const ModelInfo& info = model.info();
  const int L = info.n_layers, H = info.n_heads;
  int per = 1;
  if (options.heads_per_pass != 1 && model.runs_layers() && model.runs_stacked()) {
    const int64_t row_bytes = std::max<int64_t>(1, model.stacked_floats_per_row()) * int64_t(sizeof(float)) * T;
    per = int(std::clamp<int64_t>(kStackedAblationBytes / row_bytes, 1, H));
    if (options.heads_per_pass > 1) per = std::min(per, options.heads_per_pass);
    const int threads = resolve_threads(options.threads);
    if (L < threads) per = std::min(per, std::max(1, H * L / threads));
  }
  std::vector<AblationPass> passes;  // layer 0 first: the most layers to rerun
  for (int l = 0; l < L; ++l)
    for (int h0 = 0; h0 < H; h0 += per) passes.push_back({l, h0, std::min(per, H - h0)});
  return passes;
}

// One pass's heads, each knocked out alone: one after another (a model run whole, or one head per
// pass) or stacked in one pass. Empty when cancelled between layers.
std::vector<AblationMeasured> run_ablation_pass(const AblationRunner& runner, const TransformerModel& model, const AblationPass& p,
                                                const AblationOptions& options, bool parallel) {
  const std::vector<Eigen::RowVectorXf>* means = runner.means(options);
  if (p.count > 1) {
    std::vector<HeadRef> heads;
    for (int h = p.head0; h < p.head0 + p.count; ++h) heads.push_back({p.layer, h});
    return runner.run_stacked(heads, means, options.cancelled);
  }
  HeadKnockout knockout({HeadRef{p.layer, p.head0}}, model.info().d_head, means);
  return {runner.run(knockout, parallel ? 1 : options.threads)};
}

}  // namespace

static HeadAblation ablate_heads_unguarded(const TransformerModel& model, const std::vector<int>& ids,
                                           const AblationOptions& options) {
  check_ablation_input(model, ids, options);
  const auto start = std::chrono::steady_clock::now();
  const ModelInfo& info = model.info();
  const int L = info.n_layers, H = info.n_heads;
  const AblationRunner runner(model, ids, options);
  HeadAblation out;
  out.mode = options.mode;
  out.ids = ids;
  out.target = options.target;
  out.reference_mean = options.mode == AblationMode::mean && options.reference;
  out.measure_only = runner.measure_only();
  out.base_logprob = runner.base.lp;
  out.base_loss = runner.base.loss;
  out.base_measure = runner.base.measure;
  out.delta_loss = Map::Constant(L, H, std::numeric_limits<float>::quiet_NaN());
  out.delta_measure = out.delta_loss;
  out.delta_logprob.assign(size_t(L), std::vector<Vec>(size_t(H)));
  // Passes run in parallel, one thread each (a model run whole: one after another, on every thread).
  const std::vector<AblationPass> passes = ablation_passes(model, int(ids.size()), options);
  const int total = L * H;
  const bool parallel = model.runs_layers();
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards `done`, the progress callback and the results
  int done = 0;
  const auto one = [&](int task) {
    if (stop.load() || (options.cancelled && options.cancelled())) {
      stop = true;
      return;
    }
    const AblationPass& p = passes[size_t(task)];
    try {
      const std::vector<AblationMeasured> measured = run_ablation_pass(runner, model, p, options, parallel);
      std::lock_guard<std::mutex> lock(mutex);
      if (measured.empty()) stop = true;  // cancelled between layers
      // Each head stored, then counted: a cancel keeps exactly the heads counted (what finishes after it is dropped).
      for (size_t i = 0; i < measured.size() && !stop.load(); ++i) {
        const int l = p.layer, h = p.head0 + int(i);
        const AblationMeasured& m = measured[i];
        if (!runner.measure_only()) out.delta_logprob[size_t(l)][size_t(h)] = m.lp - out.base_logprob;
        out.delta_loss(l, h) = float(m.loss - out.base_loss);
        out.delta_measure(l, h) = float(m.measure - out.base_measure);
        ++done;
        if (options.progress && !options.progress(done, total)) stop = true;
      }
    } catch (...) {
      stop = true;  // the rest are skipped; parallel_for rethrows the first error
      throw;
    }
  };
  if (parallel) parallel_for(int(passes.size()), options.threads, one);
  else
    for (int task = 0; task < int(passes.size()) && !stop.load(); ++task) one(task);
  out.complete = done == total;
  out.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// Every knocked-out head's run reads the model's mapped weights: a file changed meanwhile discards them all.
HeadAblation ablate_heads(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options) {
  return run_guarded([&] { return ablate_heads_unguarded(model, ids, options); });
}

GroupAblation ablate_group(const TransformerModel& model, const std::vector<int>& ids, const std::vector<HeadRef>& heads,
                           const AblationOptions& options) {
  check_ablation_input(model, ids, options);
  check_ablation_group(heads, model.info());
  const auto start = std::chrono::steady_clock::now();
  AblationOptions every_row = options;  // one pass: its every per-token change is kept
  every_row.logits = AblationLogits::every_prediction;
  const AblationRunner runner(model, ids, every_row);
  HeadKnockout knockout(heads, model.info().d_head, runner.means(options));
  const AblationMeasured m = runner.run(knockout, 1);
  GroupAblation out;
  out.mode = options.mode;
  out.heads = heads;
  out.ids = ids;
  out.target = options.target;
  out.reference_mean = options.mode == AblationMode::mean && options.reference;
  out.base_logprob = runner.base.lp;
  out.delta_logprob = m.lp - runner.base.lp;
  out.base_loss = runner.base.loss;
  out.delta_loss = m.loss - runner.base.loss;
  out.base_measure = runner.base.measure;
  out.delta_measure = m.measure - runner.base.measure;
  out.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

HeadAblation ablate_heads(const ModelRequest& request, const AblationOptions& options, CheckpointCache* cache) {
  if (request.model_path.empty()) {
    throw InputError("ablation needs a language model (--model): the synthetic layer and --weights predict no next token");
  }
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  const auto* session = dynamic_cast<const TransformerSession*>(prepared.get());
  if (!session) throw InputError("ablation needs a language model (--model PATH)");
  HeadAblation out = ablate_heads(session->model(), session->continue_greedily(), options);
  for (const int id : out.ids) out.tokens.push_back(session->tokenizer().label(id));
  return out;
}

}  // namespace hs
