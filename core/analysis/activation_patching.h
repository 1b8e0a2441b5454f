#pragma once
// Minimal pairs the way papers measure them (Wang et al. 2022; TransformerLens's patching tools):
// a logit difference between two continuations, and activation patching of every head.
//   LD(ids)  = logit(target) - logit(versus) at the last position of ids (the next-token logits
//              after the last token, final soft-cap included: what a sampler reads)
//   patching = for each layer l and head h, sentence B's run with head h's output at layer l (its
//              context, attention @ v, before the output projection) replaced by sentence A's at
//              the patched positions, everything else B's own; then
//              share(l, h) = (LD_patched - LD_B) / (LD_A - LD_B)
//              1: the head alone carries the difference A makes, 0: it carries none of it; null
//              (NaN) when |LD_A - LD_B| < kMinPatchingGap (no gap to restore).
// Patched positions: sentences of equal token length, every position i of B gets A's i; otherwise
// the alignment's pairs that hold a token on both sides (the same token or a replaced one).
// The replacement goes through the engine's context hook (core/model/context_editor.h), which every
// decoder calls (llama2.c, the Hugging Face decoders, GGUF, the teaching model); encoders predict no
// next token and are refused. One pass per head: a model that runs layer by layer keeps B's residual
// stream entering each layer and reruns only layers l .. L-1, heads in parallel (one thread each);
// every pass, the clean ones included, takes the same single-threaded path, so a patch that changes
// nothing gives exactly LD_B.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/analysis/contrast.h"
#include "core/model/transformer_model.h"
#include "core/util/tensor.h"

namespace hs {

class SubwordTokenizer;

constexpr double kMinPatchingGap = 1e-6;

// The two continuations compared, as token ids (each the first piece of its text).
struct TargetPair {
  int target = -1, versus = -1;
};

// A position of B that gets A's context: (token index in A, token index in B).
using PatchPosition = std::pair<int, int>;

// Equal lengths (n_a == n_b): every position (i, i); otherwise the alignment's same and replaced
// steps. `every` is set to which of the two it is.
std::vector<PatchPosition> patch_positions(const TokenAlignment& alignment, int n_a, int n_b, bool* every = nullptr);

// InputError unless the model predicts the next token (an encoder does not).
void require_next_token(const TransformerModel& model);

// LD after the last token of ids (at least one token), on the single-threaded path patching uses.
double logit_difference(const TransformerModel& model, const std::vector<int>& ids, TargetPair pair);

struct PatchingOptions {
  int threads = 0;  // heads in parallel (<= 0: all cores)
  // Called after each patched head with (done, total), one call at a time; returning false stops the
  // work (complete = false; heads not done stay NaN).
  std::function<bool(int, int)> progress;
};

struct HeadPatching {
  double logit_diff_a = 0, logit_diff_b = 0;  // LD_A, LD_B
  bool gap_too_small = false;                 // |LD_A - LD_B| < kMinPatchingGap: every share is NaN
  Map logit_diff;                             // [L, H] LD_patched (NaN: not run)
  Map share;                                  // [L, H] share of the gap restored (NaN: null or not run)
  std::vector<PatchPosition> positions;
  bool complete = true;
  int n_layers() const { return int(share.rows()); }
  int n_heads() const { return int(share.cols()); }
};

// Throws InputError for an encoder, an empty side, target == versus or ids outside the vocabulary.
HeadPatching patch_heads(const TransformerModel& model, const std::vector<int>& ids_a, const std::vector<int>& ids_b,
                         const std::vector<PatchPosition>& positions, TargetPair pair, const PatchingOptions& options = {});

// The ids `text` continues `sentence` with: encode(sentence + text) after its longest common prefix
// with encode(sentence). InputError when that leaves nothing (an empty text).
std::vector<int> continuation_ids(const SubwordTokenizer& tokenizer, const std::string& sentence, const std::string& text);

}  // namespace hs
