#pragma once
// Which heads matter for this sentence: knock out one head at a time and measure how well the
// model still predicts each actual next token.
//   intact:   lp[t] = log p(ids[t+1] | ids[0..t]),  loss = mean_t -lp[t]   (t = 0 .. T-2)
//   ablated:  the same with head h of layer l knocked out before the output projection:
//             zero: its context (attention @ v) set to 0, so it adds nothing to the residual stream
//                   (an output bias, GPT-2's, stays);
//             mean: its context at every position set to its mean over the sentence's positions in
//                   the intact run.
//   delta_logprob[l][h][t] = lp_ablated[t] - lp[t] (negative: the head helped predict token t+1);
//   delta_loss(l, h) = loss_ablated - loss (positive: the model is worse without the head).
// One pass per head, L*H in all, plus the intact one. A model that runs layer by layer (every
// decoder) keeps the intact residual stream entering each layer, so a head of layer l reruns only
// layers l .. L-1, and heads run in parallel (one thread each).
#include <functional>
#include <string>
#include <vector>

#include "core/model/model_request.h"
#include "core/model/transformer_model.h"

namespace hs {

class CheckpointCache;

enum class AblationMode { zero, mean };

const char* ablation_mode_name(AblationMode mode);  // "zero", "mean"

struct AblationOptions {
  AblationMode mode = AblationMode::zero;
  int threads = 0;
  // Called after each ablated head with (done, total), one call at a time (from the worker threads);
  // returning false stops the work (the result then says complete = false and holds the heads
  // done so far, `done` of them; the rest, and any head still running, are NaN).
  std::function<bool(int, int)> progress;
};

struct HeadAblation {
  AblationMode mode = AblationMode::zero;
  std::vector<int> ids;                          // T token ids the model ran
  std::vector<std::string> tokens;               // their labels (the request's tokenizer; else empty)
  Vec base_logprob;                              // [T-1]
  double base_loss = 0;                          // mean next-token loss of the intact model (nats)
  std::vector<std::vector<Vec>> delta_logprob;   // [layer][head] -> [T-1]
  Map delta_loss;                                // [L, H]
  bool complete = true;
  double compute_ms = 0;                         // the passes (the intact one and every head's), loading not included
  int n_layers() const { return int(delta_loss.rows()); }
  int n_heads() const { return int(delta_loss.cols()); }
};

// On `ids` (at least 2 tokens). Throws InputError for fewer.
HeadAblation ablate_heads(const TransformerModel& model, const std::vector<int>& ids, const AblationOptions& options = {});

// On the request's tokens (with any --generate continuation). Throws InputError when the request is
// not a language model (the synthetic layer and --weights predict no next token).
HeadAblation ablate_heads(const ModelRequest& request, const AblationOptions& options = {}, CheckpointCache* cache = nullptr);

}  // namespace hs
