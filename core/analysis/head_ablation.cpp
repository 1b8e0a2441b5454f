#include "core/analysis/head_ablation.h"

#include <cmath>
#include <limits>

#include "core/model/context_editor.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// log p(ids[t+1]) under each row t of logits [T, vocab]: the stable log-softmax,
// z_t - max - log sum_j exp(z_j - max). [T-1]
Vec next_token_logprob(const Map& logits, const std::vector<int>& ids) {
  const Eigen::Index n = logits.rows() - 1;
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

HeadAblation ablate_heads(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options) {
  const ModelInfo& info = model.info();
  if (ids.size() < 2) {
    throw InputError("ablation needs at least 2 tokens (a next token to predict); the input has " + std::to_string(ids.size()));
  }
  const int L = info.n_layers, H = info.n_heads, dh = info.d_head;
  HeadAblation out;
  out.mode = options.mode;
  out.ids = ids;
  ContextMeans means(L);
  const Map hidden = model.forward(ids, &means, options.threads);  // [T, d]
  out.base_logprob = next_token_logprob(model.logits(hidden, options.threads), ids);
  out.base_loss = -double(out.base_logprob.mean());
  out.delta_loss = Map::Constant(L, H, std::numeric_limits<float>::quiet_NaN());
  out.delta_logprob.assign(size_t(L), std::vector<Vec>(size_t(H)));
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
        return out;
      }
    }
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
