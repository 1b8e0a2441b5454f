#include "core/analysis/model_contrast.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/util/errors.h"

namespace hs {

bool LogitsKeeper::wants(TensorKind kind, int, int) const { return kind == TensorKind::logits; }

void LogitsKeeper::on_tensor(TensorKind kind, int, int, const Map& tensor) {
  if (kind == TensorKind::logits) logits = tensor;
}

void LogitsKeeper::take_tensor(TensorKind kind, int, int, Map&& tensor) {
  if (kind == TensorKind::logits) logits = std::move(tensor);
}

namespace {

// log softmax of one row of logits, in double: x - max - log sum exp(x - max).
std::vector<double> model_pair_log_softmax(const Map& logits, Eigen::Index row) {
  const Eigen::Index n = logits.cols();
  double top = -INFINITY;
  for (Eigen::Index v = 0; v < n; ++v) top = std::max(top, double(logits(row, v)));
  double sum = 0;
  for (Eigen::Index v = 0; v < n; ++v) sum += std::exp(double(logits(row, v)) - top);
  const double log_sum = std::log(sum) + top;
  std::vector<double> out(static_cast<size_t>(n));
  for (Eigen::Index v = 0; v < n; ++v) out[size_t(v)] = double(logits(row, v)) - log_sum;
  return out;
}

// The lowest index of the largest entry.
size_t model_pair_argmax(const std::vector<double>& x) { return size_t(std::max_element(x.begin(), x.end()) - x.begin()); }

}  // namespace

NextTokenAgreement next_token_agreement(const Map& logits_a, const Map& logits_b) {
  NextTokenAgreement out;
  if (logits_a.size() == 0 || logits_b.size() == 0) return out;
  if (logits_a.rows() != logits_b.rows() || logits_a.cols() != logits_b.cols()) {
    throw InputError("the next-token logits have different shapes ([" + std::to_string(logits_a.rows()) + ", " +
                     std::to_string(logits_a.cols()) + "] and [" + std::to_string(logits_b.rows()) + ", " +
                     std::to_string(logits_b.cols()) + "]); expected the same positions and vocabulary");
  }
  double kl_sum = 0;
  out.max_kl = -1;
  for (Eigen::Index i = 0; i < logits_a.rows(); ++i) {
    const std::vector<double> la = model_pair_log_softmax(logits_a, i), lb = model_pair_log_softmax(logits_b, i);
    double kl = 0;  // sum_v P_A(v) (log P_A(v) - log P_B(v))
    for (size_t v = 0; v < la.size(); ++v) kl += std::exp(la[v]) * (la[v] - lb[v]);
    kl = std::max(kl, 0.0);  // rounding can leave -1e-17 for identical rows
    kl_sum += kl;
    if (kl > out.max_kl) out.max_kl = kl, out.max_kl_position = int(i);
    if (model_pair_argmax(la) == model_pair_argmax(lb)) ++out.top1_matches;
  }
  if (out.max_kl_position < 0) out.max_kl = std::numeric_limits<double>::quiet_NaN();  // every KL NaN (non-finite logits)
  out.positions = int(logits_a.rows());
  out.match_rate = double(out.top1_matches) / out.positions;
  out.mean_kl = kl_sum / out.positions;
  return out;
}

bool same_file(const std::string& path_a, const std::string& path_b) {
  if (path_a == path_b) return true;
  struct stat sa {}, sb {};
  if (stat(path_a.c_str(), &sa) != 0 || stat(path_b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

// The architecture a run's weights follow: a Hugging Face or GGUF family, llama2.c's is Llama's.
std::string model_pair_family(const ModelInfo& info) {
  if (!info.family.empty()) return info.family;
  if (info.kind == "llama2c") return "llama";
  return info.kind;
}

// "[1, 403, 407, ...]": the first ids of a sequence, for a message.
std::string model_pair_ids_text(const std::vector<int>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size() && i < 8; ++i) s += (i ? ", " : "") + std::to_string(ids[i]);
  return s + (ids.size() > 8 ? ", ...]" : "]");
}

void check_pair_runs(const AttentionRun& a, const AttentionRun& b) {
  if (a.token_ids.empty() || b.token_ids.empty()) {
    throw InputError(std::string("comparing two models needs two pretrained checkpoints (--model and --model-b); model ") +
                     (a.token_ids.empty() ? "A (" + a.info.name : "B (" + b.info.name) + ") has no token ids (" +
                     (a.token_ids.empty() ? a.info.kind : b.info.kind) + ")");
  }
  if (a.compact() || b.compact()) {
    throw InputError("comparing two models needs whole attention maps, and the input is in long-input mode (" +
                     std::to_string(a.n_tokens()) + " tokens); shorten it or give --whole-maps");
  }
}

void check_pair_architecture(const ModelInfo& a, const ModelInfo& b) {
  if (model_pair_family(a) != model_pair_family(b)) {
    throw InputError("the two models are of different families (A: " + a.name + ", " + model_pair_family(a) + "; B: " +
                     b.name + ", " + model_pair_family(b) + "); compare a model with its quantization, fine-tune or checkpoint");
  }
  if (a.d_model != b.d_model) {
    throw InputError("the two models have different widths (A: d_model " + std::to_string(a.d_model) + ", B: d_model " +
                     std::to_string(b.d_model) + "); compare a model with its quantization, fine-tune or checkpoint");
  }
  if (a.vocab_size != b.vocab_size) {
    throw InputError("the two models have different vocabularies (A: " + std::to_string(a.vocab_size) + " entries, B: " +
                     std::to_string(b.vocab_size) + "); comparing head by head needs one tokenizer");
  }
}

// One tokenizer on this input: the same ids, and the same text for each.
void check_pair_tokens(const AttentionRun& a, const AttentionRun& b) {
  if (a.token_ids != b.token_ids) {
    throw InputError("the two models tokenize the input differently (A: " + std::to_string(a.token_ids.size()) + " tokens " +
                     model_pair_ids_text(a.token_ids) + ", B: " + std::to_string(b.token_ids.size()) + " tokens " +
                     model_pair_ids_text(b.token_ids) + "); comparing head by head needs one tokenizer");
  }
  for (size_t i = 0; i < a.tokens.size() && i < b.tokens.size(); ++i) {
    if (a.tokens[i] != b.tokens[i]) {
      throw InputError("the two models' tokenizers give token " + std::to_string(a.token_ids[i]) + " different text (A: '" +
                       a.tokens[i] + "', B: '" + b.tokens[i] + "' at position " + std::to_string(i) +
                       "); comparing head by head needs one tokenizer");
    }
  }
}

std::string layers_heads_text(const ModelInfo& m) {
  return std::to_string(m.n_layers) + " layers x " + std::to_string(m.n_heads) + " heads";
}

}  // namespace

ModelComparison check_model_pair(const AttentionRun& a, const AttentionRun& b, const std::string& path_a,
                                 const std::string& path_b) {
  check_pair_runs(a, b);
  check_pair_architecture(a.info, b.info);
  check_pair_tokens(a, b);
  ModelComparison out;
  out.path_a = path_a, out.path_b = path_b;
  out.same_file = same_file(path_a, path_b);
  out.shared_layers = std::min(a.n_layers(), b.n_layers());
  out.shared_heads = std::min(a.n_heads(), b.n_heads());
  if (a.n_layers() != b.n_layers() || a.n_heads() != b.n_heads()) {
    out.notes.push_back("the models differ in shape (A: " + layers_heads_text(a.info) + ", B: " + layers_heads_text(b.info) +
                        "): only the " + std::to_string(out.shared_layers) + " x " + std::to_string(out.shared_heads) +
                        " layers x heads both have are compared");
  }
  if (out.same_file) out.notes.push_back("A and B are the same file: every head's change is 0 by construction");
  return out;
}

ContrastResult contrast_models(const AttentionRun& a, const AttentionRun& b, ModelComparison& comparison) {
  ContrastResult out = contrast_same_tokens(a, b, comparison.shared_layers, comparison.shared_heads);
  bool all_zero = true;
  for (const auto& layer : out.heads)
    for (const HeadChange& h : layer) all_zero = all_zero && h.distance == 0.0f;
  if (all_zero && !comparison.same_file)
    comparison.notes.push_back("every head's change is 0: the two models attend identically on this input");
  return out;
}

}  // namespace hs
