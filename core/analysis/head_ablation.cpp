#include "core/analysis/head_ablation.h"

#include <algorithm>
#include <cassert>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <mutex>

#include "core/model/context_editor.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// log p(ids[t+1]) under each row t of logits [T-1 (or more), vocab]: the stable log-softmax,
// z_t - max - log sum_j exp(z_j - max). [T-1]
Vec next_token_logprob(const Map& logits, const std::vector<int>& ids) {
  const Eigen::Index n = Eigen::Index(ids.size()) - 1;
  assert(logits.rows() >= n && "a row of logits per predicted token");
  Vec lp(n);
  for (Eigen::Index t = 0; t < n; ++t) {
    const auto row = logits.row(t);
    const float m = row.maxCoeff();
    double sum = 0;
    for (Eigen::Index j = 0; j < row.size(); ++j) sum += std::exp(double(row(j) - m));
    lp(t) = float(double(row(ids[size_t(t + 1)]) - m) - std::log(sum));
  }
  return lp;
}

// Intact run: remembers the mean over positions of every layer's contexts, edits nothing.
class ContextMeans : public ContextEditor {
 public:
  explicit ContextMeans(int n_layers) : means(size_t(n_layers)) {}
  void edit_contexts(int layer, Map& contexts) override { means[size_t(layer)] = contexts.colwise().mean(); }
  std::vector<Eigen::RowVectorXf> means;  // [layer] -> [H*dh]
};

// Knocks out head `head` of layer `layer`: its columns to 0, or to the intact run's means.
class HeadKnockout : public ContextEditor {
 public:
  HeadKnockout(int layer, int head, int d_head, const Eigen::RowVectorXf* mean)
      : layer_(layer), head_(head), d_head_(d_head), mean_(mean) {}
  void edit_contexts(int layer, Map& contexts) override {
    if (layer != layer_) return;
    auto cols = contexts.middleCols(Eigen::Index(head_) * d_head_, d_head_);  // [T, dh]
    if (mean_) cols.rowwise() = mean_->segment(Eigen::Index(head_) * d_head_, d_head_);
    else cols.setZero();
  }

 private:
  int layer_, head_, d_head_;
  const Eigen::RowVectorXf* mean_;
};

}  // namespace

const char* ablation_mode_name(AblationMode mode) { return mode == AblationMode::mean ? "mean" : "zero"; }

namespace {

// The whole forward pass per head (models that do not run layer by layer).
void ablate_whole(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options,
                  const ContextMeans& means, HeadAblation& out) {
  const ModelInfo& info = model.info();
  const int L = info.n_layers, H = info.n_heads, dh = info.d_head;
  int done = 0;
  for (int l = 0; l < L; ++l)
    for (int h = 0; h < H; ++h) {
      HeadKnockout knockout(l, h, dh, options.mode == AblationMode::mean ? &means.means[size_t(l)] : nullptr);
      const Vec lp = next_token_logprob(model.logits(model.forward(ids, &knockout, options.threads), options.threads), ids);
      out.delta_logprob[size_t(l)][size_t(h)] = lp - out.base_logprob;
      out.delta_loss(l, h) = float(-double(lp.mean()) - out.base_loss);
      ++done;
      if (options.progress && !options.progress(done, L * H)) {
        out.complete = false;
        return;
      }
    }
}

}  // namespace

HeadAblation ablate_heads(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options) {
  const ModelInfo& info = model.info();
  if (ids.size() < 2) {
    throw InputError("ablation needs at least 2 tokens (a next token to predict); the input has " + std::to_string(ids.size()));
  }
  if (!model.predicts_next_token()) {
    throw InputError("ablation needs a language model that predicts the next token; " +
                     (info.name.empty() ? std::string("this model") : info.name) + " is an encoder");
  }
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  const int L = info.n_layers, H = info.n_heads, dh = info.d_head;
  const Eigen::Index n = Eigen::Index(ids.size()) - 1;  // rows whose next token is known
  HeadAblation out;
  out.mode = options.mode;
  out.ids = ids;
  out.delta_loss = Map::Constant(L, H, std::numeric_limits<float>::quiet_NaN());
  out.delta_logprob.assign(size_t(L), std::vector<Vec>(size_t(H)));
  ContextMeans means(L);
  if (!model.runs_layers()) {
    const Map hidden = model.forward(ids, &means, options.threads);  // [T, d]
    out.base_logprob = next_token_logprob(model.logits(hidden.topRows(n), options.threads), ids);
    out.base_loss = -double(out.base_logprob.mean());
    ablate_whole(model, ids, options, means, out);
    out.compute_ms = elapsed_ms();
    return out;
  }
  // Layer by layer: the intact run keeps the residual stream entering each layer, so knocking out
  // a head of layer l reruns only layers l .. L-1 from there. Heads run in parallel, one thread
  // each; every pass (intact and ablated) takes the same single-threaded path, so a head that adds
  // nothing gives exactly the intact log-probs.
  std::vector<Map> entering(static_cast<size_t>(L));  // [layer] -> residual stream entering it, [T, d]
  Map x = model.embed_tokens(ids);
  for (int l = 0; l < L; ++l) {
    entering[size_t(l)] = x;
    model.run_layers(x, l, l + 1, &means, 1);
  }
  out.base_logprob = next_token_logprob(model.logits(model.final_norm(x).topRows(n), 1), ids);
  out.base_loss = -double(out.base_logprob.mean());

  const int total = L * H;
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards `done`, the progress callback and the results
  int done = 0;
  parallel_for(total, options.threads, [&](int task) {
    if (stop.load()) return;
    const int l = task / H, h = task % H;
    try {
      HeadKnockout knockout(l, h, dh, options.mode == AblationMode::mean ? &means.means[size_t(l)] : nullptr);
      Map y = entering[size_t(l)];
      model.run_layers(y, l, L, &knockout, 1);
      const Vec lp = next_token_logprob(model.logits(model.final_norm(y).topRows(n), 1), ids);
      std::lock_guard<std::mutex> lock(mutex);
      if (stop.load()) return;  // cancelled meanwhile: what finishes after the cancel is dropped
      out.delta_logprob[size_t(l)][size_t(h)] = lp - out.base_logprob;
      out.delta_loss(l, h) = float(-double(lp.mean()) - out.base_loss);
      ++done;
      if (options.progress && !options.progress(done, total)) stop = true;
    } catch (...) {
      stop = true;  // the rest are skipped; parallel_for rethrows the first error
      throw;
    }
  });
  out.complete = done == total;
  out.compute_ms = elapsed_ms();
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
