#include "core/analysis/activation_patching.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "core/formats/mapped_guard.h"
#include "core/model/context_editor.h"
#include "core/text/tokenizer_base.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

const double kNaNDouble = std::numeric_limits<double>::quiet_NaN();

// LD from the final hidden rows [n, d_model] (already normed): their last row's logits.
double last_row_difference(const TransformerModel& model, const Map& hidden, TargetPair pair) {
  const Map logits = model.logits(hidden.bottomRows(1), 1);  // [1, vocab]
  return double(logits(0, pair.target)) - double(logits(0, pair.versus));
}

// The clean run of one side: every layer's contexts [T, H*dh], and (layer by layer) the residual
// stream entering each layer [T, d_model]. Edits nothing.
class ContextRecorder : public ContextEditor {
 public:
  explicit ContextRecorder(int n_layers) : contexts(size_t(n_layers)) {}
  void edit_contexts(int layer, Map& ctx) override { contexts[size_t(layer)] = ctx; }
  std::vector<Map> contexts;  // [layer] -> [T, H*dh]
};

// Head `head` of layer `layer` takes A's context at the patched positions; the rest stays B's.
class HeadPatch : public ContextEditor {
 public:
  HeadPatch(int layer, int head, int d_head, const Map& source, const std::vector<PatchPosition>& positions)
      : layer_(layer), head_(head), d_head_(d_head), source_(source), positions_(positions) {}
  void edit_contexts(int layer, Map& ctx) override {
    if (layer != layer_) return;
    const Eigen::Index c0 = Eigen::Index(head_) * d_head_;
    for (const auto& [a, b] : positions_) ctx.block(b, c0, 1, d_head_) = source_.block(a, c0, 1, d_head_);
  }

 private:
  int layer_, head_, d_head_;
  const Map& source_;  // A's contexts of layer `layer`, [T_a, H*dh]
  const std::vector<PatchPosition>& positions_;
};

struct CleanRun {
  double logit_diff = 0;
  std::vector<Map> entering;  // [layer] -> [T, d_model]; empty for a model run whole
};

// One side run clean, recording its contexts into `recorder` (may be null).
CleanRun run_clean(const TransformerModel& model, const std::vector<int>& ids, TargetPair pair, ContextEditor* recorder) {
  CleanRun out;
  if (!model.runs_layers()) {
    out.logit_diff = last_row_difference(model, model.forward(ids, recorder, 1), pair);
    return out;
  }
  const int L = model.info().n_layers;
  Map x = model.embed_tokens(ids);  // [T, d]
  for (int l = 0; l < L; ++l) {
    out.entering.push_back(x);
    model.run_layers(x, l, l + 1, recorder, 1);
  }
  out.logit_diff = last_row_difference(model, model.final_norm(x), pair);
  return out;
}

// LD of B with head (l, h) patched: from B's residual stream entering l, or a whole pass.
double patched_difference(const TransformerModel& model, const std::vector<int>& ids_b, const CleanRun& b, HeadPatch& patch,
                          int layer, TargetPair pair) {
  if (b.entering.empty()) return last_row_difference(model, model.forward(ids_b, &patch, 1), pair);
  Map y = b.entering[size_t(layer)];
  model.run_layers(y, layer, model.info().n_layers, &patch, 1);
  return last_row_difference(model, model.final_norm(y), pair);
}

void check_inputs(const TransformerModel& model, const std::vector<int>& ids_a, const std::vector<int>& ids_b, TargetPair pair,
                  const std::vector<PatchPosition>& positions) {
  require_next_token(model);
  const ModelInfo& info = model.info();
  if (ids_a.empty() || ids_b.empty()) throw InputError("logit differences need at least one token in each sentence");
  const int vocab = info.vocab_size;
  for (const int id : {pair.target, pair.versus})
    if (id < 0 || (vocab > 0 && id >= vocab))
      throw InputError("token id " + std::to_string(id) + " is outside the vocabulary (0 to " + std::to_string(vocab - 1) + ")");
  if (pair.target == pair.versus) {
    throw InputError("the target and the versus continuation start with the same token (id " + std::to_string(pair.target) +
                     "): their logit difference is 0 whatever the sentence");
  }
  for ([[maybe_unused]] const auto& [a, b] : positions)
    assert(a >= 0 && a < int(ids_a.size()) && b >= 0 && b < int(ids_b.size()) && "a patched position inside both sentences");
}

}  // namespace

void require_next_token(const TransformerModel& model) {
  if (model.predicts_next_token()) return;
  const std::string& name = model.info().name;
  throw InputError("logit differences and activation patching need a language model that predicts the next token; " +
                   (name.empty() ? std::string("this model") : name) +
                   " is an encoder (it reads the whole text at once: there is no next token to compare)");
}

std::vector<PatchPosition> patch_positions(const TokenAlignment& alignment, int n_a, int n_b, bool* every) {
  std::vector<PatchPosition> out;
  if (every) *every = n_a == n_b;
  if (n_a == n_b) {
    for (int i = 0; i < n_a; ++i) out.emplace_back(i, i);
    return out;
  }
  for (const int k : alignment.paired_steps()) out.emplace_back(alignment.steps[size_t(k)].a, alignment.steps[size_t(k)].b);
  return out;
}

double logit_difference(const TransformerModel& model, const std::vector<int>& ids, TargetPair pair) {
  check_inputs(model, ids, ids, pair, {});
  return run_clean(model, ids, pair, nullptr).logit_diff;
}

static HeadPatching patch_heads_unguarded(const TransformerModel& model, const std::vector<int>& ids_a,
                                          const std::vector<int>& ids_b, const std::vector<PatchPosition>& positions,
                                          TargetPair pair, const PatchingOptions& options) {
  check_inputs(model, ids_a, ids_b, pair, positions);
  const ModelInfo& info = model.info();
  const int L = info.n_layers, H = info.n_heads, dh = info.d_head;
  HeadPatching out;
  out.positions = positions;
  out.logit_diff = Map::Constant(L, H, float(kNaNDouble));
  out.share = out.logit_diff;
  ContextRecorder contexts_a(L);
  out.logit_diff_a = run_clean(model, ids_a, pair, &contexts_a).logit_diff;
  const CleanRun b = run_clean(model, ids_b, pair, nullptr);
  out.logit_diff_b = b.logit_diff;
  const double gap = out.logit_diff_a - out.logit_diff_b;
  out.gap_too_small = std::abs(gap) < kMinPatchingGap;

  const auto patch_head = [&](int task) -> std::function<void()> {
    const int l = task / H, h = task % H;
    HeadPatch patch(l, h, dh, contexts_a.contexts[size_t(l)], positions);
    const double ld = patched_difference(model, ids_b, b, patch, l, pair);
    return [&out, l, h, ld, gap] {
      out.logit_diff(l, h) = float(ld);
      out.share(l, h) = out.gap_too_small ? float(kNaNDouble) : float((ld - out.logit_diff_b) / gap);
    };
  };
  out.complete = parallel_tasks(L * H, options.threads, patch_head, options.progress) == L * H;
  return out;
}

// Every patched run reads the model's mapped weights: a file changed meanwhile discards them all.
HeadPatching patch_heads(const TransformerModel& model, const std::vector<int>& ids_a, const std::vector<int>& ids_b,
                         const std::vector<PatchPosition>& positions, TargetPair pair, const PatchingOptions& options) {
  return run_guarded([&] { return patch_heads_unguarded(model, ids_a, ids_b, positions, pair, options); });
}

std::vector<int> continuation_ids(const SubwordTokenizer& tokenizer, const std::string& sentence, const std::string& text) {
  const std::vector<int> alone = tokenizer.encode(sentence), joined = tokenizer.encode(sentence + text);
  const auto common = std::mismatch(alone.begin(), alone.end(), joined.begin(), joined.end());
  if (common.first != alone.end()) {
    throw InputError("the continuation '" + text + "' merges with the end of the sentence into other tokens; start it with "
                     "a space (\" are\") so that it continues the sentence's tokens");
  }
  const std::vector<int> out(common.second, joined.end());
  if (out.empty()) throw InputError("the continuation '" + text + "' adds no token to the sentence (give a word, e.g. \" are\")");
  return out;
}

}  // namespace hs
