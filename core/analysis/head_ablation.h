#pragma once
// Which heads matter for this sentence: knock out one head at a time and measure how well the
// model still predicts each actual next token.
//   intact:   lp[t] = log p(ids[t+1] | ids[0..t]),  loss = mean_t -lp[t]   (t = 0 .. T-2)
//   ablated:  the same with head h of layer l knocked out before the output projection:
//             zero: its context (attention @ v) set to 0, so it adds nothing to the residual stream
//                   (an output bias, GPT-2's, stays);
//             mean: its context at every position set to its mean over the sentence's positions in
//                   the intact run.
//             mean over a reference text (AblationOptions::reference): its mean over every
//                   position of every reference sentence, pooled (each token counts once).
//   delta_logprob[l][h][t] = lp_ablated[t] - lp[t] (negative: the head helped predict token t+1);
//   delta_loss(l, h) = loss_ablated - loss (positive: the model is worse without the head).
// The measure (AblationTarget) is the mean loss or, for a target, m = log p(c | ids[0..P]): the
// log-probability of token c as the prediction made at position P (row P of the logits);
//   delta_measure = m_ablated - m (for the mean loss: delta_loss).
// A group (ablate_group) knocks out several heads together in one pass.
// A model that runs layer by layer (every decoder) keeps the intact residual stream entering each
// layer, so a head of layer l reruns only layers l .. L-1. The heads of one layer run as one pass of
// stacked variants ([V*T, d]: every product reads each weight once for V heads, attention per
// variant, then the final norm and logits of the rows the measure reads, V*(T-1) rows in blocks for
// the mean loss, V for a target with measure_only); passes run in parallel, one thread each.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/model/model_request.h"
#include "core/model/transformer_model.h"

namespace hs {

class CheckpointCache;

enum class AblationMode { zero, mean };

// A head of the model, layer and head from 0.
struct HeadRef {
  int layer = 0, head = 0;
  bool operator==(const HeadRef& o) const { return layer == o.layer && head == o.head; }
};

// What an ablation measures: the mean next-token loss (position < 0), or the log-probability of
// token_id as the prediction made at token `position` (the token that would follow it).
struct AblationTarget {
  int position = -1;
  int token_id = -1;
  bool is_mean_loss() const { return position < 0; }
};

// Each layer's mean context over every position of some texts (mean ablation over a reference).
struct ContextMeanSet {
  std::vector<Eigen::RowVectorXf> means;  // [layer] -> [H*dh]
  int64_t positions = 0;                  // tokens pooled
  int texts = 0;                          // texts run
};

// The intact model on each text (each at least 1 token); the pooled mean of every context.
// `progress`, if set, is called after each text with (done, total). InputError for no texts.
ContextMeanSet context_means(const TransformerModel& model, const std::vector<std::vector<int>>& texts, int threads = 0,
                             const std::function<void(int, int)>& progress = {});

const char* ablation_mode_name(AblationMode mode);  // "zero", "mean"

// Which rows of logits (the final norm and the unembedding, [rows, vocab]) each ablated pass computes:
//   every_prediction: every predicted token's row, and the target's (delta_logprob, delta_loss for every head);
//   measure_only:     with a target, its row P alone, 1 of T (each head's delta_logprob is then empty and
//                     its delta_loss NaN; the intact pass still computes every row, so base_logprob and
//                     base_loss stay). The mean loss needs every row: there it is every_prediction.
enum class AblationLogits { every_prediction, measure_only };

struct AblationOptions {
  AblationMode mode = AblationMode::zero;
  int threads = 0;
  AblationTarget target;                     // default: the mean loss
  AblationLogits logits = AblationLogits::every_prediction;
  const ContextMeanSet* reference = nullptr;  // mean mode: these means instead of the sentence's own
  // Called after each reference text's run with (done, total) (ablation_question.h reads the texts).
  std::function<void(int, int)> reference_progress;
  // Called after each ablated head with (done, total), one call at a time (from the worker threads);
  // returning false stops the work (the result then says complete = false and holds the heads
  // done so far, `done` of them; the rest, and any head still running, are NaN).
  std::function<bool(int, int)> progress;
  // Polled between layers of a pass (and before each pass): true stops the work as progress
  // returning false does (a pass of many heads can take seconds; Ctrl+C and the app's cancel use it).
  std::function<bool()> cancelled;
  // Heads knocked out per pass: 0 (default) a layer's heads stacked as variants in one pass (as many
  // as kStackedAblationBytes of working memory allows, split further so every thread has a pass);
  // 1 one head per pass (the plain path; also every model that cannot run sequences stacked).
  int heads_per_pass = 0;
};

// Working memory of one stacked pass's layer (activations of all its variants' rows), and of one
// block of its logits: what bounds the variants per pass and the logits rows per product.
constexpr int64_t kStackedAblationBytes = int64_t(128) << 20;
constexpr int64_t kStackedLogitsBytes = int64_t(64) << 20;

struct HeadAblation {
  AblationMode mode = AblationMode::zero;
  std::vector<int> ids;                          // T token ids the model ran
  std::vector<std::string> tokens;               // their labels (the request's tokenizer; else empty)
  Vec base_logprob;                              // [T-1]
  double base_loss = 0;                          // mean next-token loss of the intact model (nats)
  std::vector<std::vector<Vec>> delta_logprob;   // [layer][head] -> [T-1]
  Map delta_loss;                                // [L, H]
  AblationTarget target;                         // what delta_measure measures
  double base_measure = 0;                       // the intact model's: base_loss or the target's log-prob
  Map delta_measure;                             // [L, H]: delta_loss, or the target log-prob's change
  bool reference_mean = false;                   // mean mode with a reference's means
  bool measure_only = false;                     // a target's row alone: delta_logprob empty, delta_loss NaN
  bool complete = true;
  double compute_ms = 0;                         // the passes (the intact one and every head's), loading not included
  int n_layers() const { return int(delta_loss.rows()); }
  int n_heads() const { return int(delta_loss.cols()); }
};

// Several heads knocked out together, in one pass.
struct GroupAblation {
  AblationMode mode = AblationMode::zero;
  std::vector<HeadRef> heads;
  std::vector<int> ids;
  std::vector<std::string> tokens;
  Vec base_logprob;             // [T-1]
  Vec delta_logprob;            // [T-1]
  double base_loss = 0, delta_loss = 0;
  AblationTarget target;
  double base_measure = 0, delta_measure = 0;
  bool reference_mean = false;
  double compute_ms = 0;
};

// On `ids` (at least 2 tokens). Throws InputError for fewer, and for a target outside the
// sentence (position past T-1, token outside the vocabulary).
HeadAblation ablate_heads(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options = {});

// `heads` knocked out together (progress is not called: one pass). InputError for no heads, a
// head outside the model or a head listed twice.
GroupAblation ablate_group(const TransformerModel& model, const std::vector<int>& ids, const std::vector<HeadRef>& heads,
                           const AblationOptions& options = {});

// On the request's tokens (with any --generate continuation). Throws InputError when the request is
// not a language model (the synthetic layer and --weights predict no next token).
HeadAblation ablate_heads(const ModelRequest& request, const AblationOptions& options = {}, CheckpointCache* cache = nullptr);

}  // namespace hs
