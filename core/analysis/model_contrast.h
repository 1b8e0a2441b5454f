#pragma once
// Two models on one input, head by head: a checkpoint against its quantization, its fine-tune or
// a later checkpoint. Both runs read the same token ids; each shared head's change is the mean
// over query rows of the rows' total-variation distance (contrast.h, as head_distance within one
// run), and the next-token distributions are compared position by position.
#include <limits>
#include <string>
#include <vector>

#include "core/analysis/contrast.h"
#include "core/model/model_run.h"
#include "core/model/observer.h"
#include "core/util/tensor.h"

namespace hs {

// Keeps a language model's next-token logits ([T, vocab], TensorKind::logits) and nothing else.
class LogitsKeeper : public Observer {
 public:
  bool wants(TensorKind kind, int layer, int head) const override;
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override;
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override;
  Map logits;  // [T, vocab]; empty when the model predicts nothing (an encoder, maps from a file)
};

// How often two models predict the same next token, and how far apart their distributions are.
// P_A(i), P_B(i): softmax of each model's logits after position i (every position).
struct NextTokenAgreement {
  int positions = 0;    // 0: not measured (a model without a next-token head)
  int top1_matches = 0; // positions where argmax P_A = argmax P_B (ties: the lowest id)
  double match_rate = std::numeric_limits<double>::quiet_NaN();  // top1_matches / positions
  // KL(P_A || P_B) = sum_v P_A(v) (log P_A(v) - log P_B(v)) in nats, its mean over positions and
  // its largest value (and where). 0 for identical logits; no upper bound.
  double mean_kl = std::numeric_limits<double>::quiet_NaN();
  double max_kl = std::numeric_limits<double>::quiet_NaN();
  int max_kl_position = -1;
};

// logits_a, logits_b: [T, vocab] each (the same shape; InputError naming both otherwise).
// Either empty: positions 0 (not measured).
NextTokenAgreement next_token_agreement(const Map& logits_a, const Map& logits_b);

// What the comparison of two models is about, beside the per-head change.
struct ModelComparison {
  std::string path_a, path_b;      // as given
  bool same_file = false;          // both paths name one file (device and inode)
  int shared_layers = 0, shared_heads = 0;
  NextTokenAgreement next_token;
  std::vector<std::string> notes;  // sentences for the reader: shared heads only, same file, all zero
};

// Checks that two runs can be compared head by head and says on what: the same token ids and
// labels (one tokenizer on this input; different vocabulary sizes or tokenizations are refused
// with an InputError showing both), the same width d_model and family (refused otherwise); a
// model with fewer layers or heads is compared on the ones both have, and a note says so.
ModelComparison check_model_pair(const AttentionRun& a, const AttentionRun& b, const std::string& path_a,
                                 const std::string& path_b);

// The per-head change of the shared heads (contrast_same_tokens), and notes when every change is
// 0 (the same file twice, or models that agree exactly on this input).
ContrastResult contrast_models(const AttentionRun& a, const AttentionRun& b, ModelComparison& comparison);

// Whether two paths name one file (same device and inode); false when either cannot be read.
bool same_file(const std::string& path_a, const std::string& path_b);

}  // namespace hs
