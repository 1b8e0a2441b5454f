#include "core/analysis/sweep_analysis.h"

#include <cctype>

#include "core/util/errors.h"

namespace hs {

std::shared_ptr<const Sweep> analyse_sweep(const ModelRequest& request, const std::vector<std::string>& tokens, int threads) {
  auto sweep = std::make_shared<Sweep>();
  sweep->d_model = request.attention.d_model;
  sweep->masked = request.attention.causal || request.attention.window >= 0;
  if (!request.model_path.empty() || !request.weights.empty() || !request.input_npy.empty() ||
      !request.attention_file.empty()) {
    sweep->note = "The head-count sweep re-initialises a synthetic layer at every head count, so it runs for the "
                  "synthetic model on a sentence only.";
    return sweep;
  }
  // Too much work for this width and length: say what would fit (before the app's length cap).
  if (std::string why = head_sweep_refusal(int64_t(tokens.size()), request.attention.d_model, kSweepSeeds); !why.empty()) {
    why[0] = char(std::toupper(static_cast<unsigned char>(why[0])));
    sweep->note = why + ".";
    return sweep;
  }
  if (int(tokens.size()) > kSweepMaxTokens) {
    sweep->note = "The head-count sweep takes singular values of every head's T x T score matrix at every head count; "
                  "it runs for sentences of up to " + std::to_string(kSweepMaxTokens) + " tokens (this one has " +
                  std::to_string(tokens.size()) + ").";
    return sweep;
  }
  SweepSpec spec;
  spec.base = request.attention;
  spec.base.n_kv_heads = 0;
  spec.base.d_head = 0;
  spec.base.scrambled_reshape = false;  // the sweep is about head counts, done the correct way
  spec.seeds.clear();
  for (int s = 0; s < kSweepSeeds; ++s) spec.seeds.push_back(uint64_t(s));
  try {
    sweep->points = head_count_sweep(tokens, spec, threads);
  } catch (const InputError& e) {
    // Refused before running anything (too much work for this d_model and length): say why.
    sweep->note = e.what();
    return sweep;
  }
  sweep->available = true;
  sweep->note = "Each point averages " + std::to_string(spec.seeds.size()) + " seeds.";
  return sweep;
}

namespace {

// The request as the sweep reads it: every field but those it sets itself (head counts, widths,
// seeds, the reshape) and those of checkpoints and long texts (it runs only the synthetic model
// on a sentence). A field added to ModelRequest counts until it is named here.
ModelRequest sweep_key(ModelRequest r) {
  r.sentence_b.clear(), r.input_ids.clear(), r.token_type_ids.clear(), r.tokenizer.clear();
  r.seed = 0, r.generate = 0, r.fit_context = false;
  AttentionConfig& c = r.attention;
  c.n_heads = 0, c.n_kv_heads = 0, c.d_head = 0, c.scrambled_reshape = false;
  return r;
}

}  // namespace

bool same_sweep_inputs(const ModelRequest& a, const ModelRequest& b) { return sweep_key(a) == sweep_key(b); }

}  // namespace hs
