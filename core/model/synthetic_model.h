#pragma once
// The built-in model: one randomly initialised multi-head attention layer (initialised as
// torch does) over deterministic embeddings of a typed sentence. Also runs a layer whose
// weights come from a file (nn.MultiheadAttention's state_dict) on a given input.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/attention_config.h"
#include "core/model/attention_weights.h"
#include "core/model/model_run.h"
#include "core/model/observer.h"

namespace hs {

struct PrefixCache;

struct RunOptions {
  int threads = 0;              // <= 0: all cores
  bool keep_scores = false;     // also record raw scores (for singular values)
  Observer* observer = nullptr; // the caller's own hook, called alongside the recorder
  // > 0: long-input mode (core/model/compact_maps.h). No [T, T] map is held: attention[l][h] is
  // a display map of at most display_size x display_size block maxima, run.map_factor says how
  // many tokens one cell spans, and run.exact gives exact rows. Scores are not kept.
  int display_size = 0;
  // Long-input mode: the whole [T, T] maps kept beside the block maxima (one layer's, one head's;
  // run.kept). The memory limit counts only these. Every layer still runs (the residual stream needs it).
  MapSelection keep = MapSelection::none();
  // Query rows per streamed block of a head (0: the engine's choice, about 16 MiB of rows).
  int stream_rows = 0;
  // Live typing (core/model/prefix_cache.h): a causal decoder reuses the previous run's prefix
  // from here and leaves its own run here. Null: every run is whole.
  PrefixCache* prefix_cache = nullptr;
  // Language models: predict the next token after every position (the CLI's next_token_ids), or
  // only after the last one, the others when asked (next_token_rows.h; the app).
  bool all_next_tokens = true;
};

struct SyntheticSpec {
  AttentionConfig attention;
  uint64_t seed = 0;
};

// Tokenizes `sentence` (words and punctuation), embeds it, runs the layer.
// Throws InputError for an empty sentence, an impossible shape or too many tokens.
AttentionRun run_synthetic(std::string_view sentence, const SyntheticSpec& spec, const RunOptions& options = {});

// Runs the synthetic layer on already tokenized text (the head-count sweep reuses this).
AttentionRun run_synthetic_tokens(const std::vector<std::string>& tokens, const SyntheticSpec& spec,
                                  const RunOptions& options = {});

// Runs one layer with the given weights on x [T, d_model] (the --weights / --input mode).
AttentionRun run_attention_layer(const Map& x, const AttentionWeights& weights, const AttentionConfig& c,
                                 std::vector<std::string> tokens, const RunOptions& options = {});

// run_attention_layer for live typing (core/model/prefix_cache.h, options.prefix_cache set):
// `key` names the layer (its settings, weights' seed and embedding), which the cache cannot tell
// from a model object; a causal layer whose tokens start as the cached run's computes only the
// new rows (x's rows must depend only on their own token and position). Otherwise a whole run.
AttentionRun run_attention_layer_cached(const Map& x, const AttentionWeights& weights, const AttentionConfig& c,
                                        std::vector<std::string> tokens, const std::string& key,
                                        const RunOptions& options);

// The longest sentence the engine accepts, in tokens.
constexpr int kMaxTokens = 65536;

// The synthetic layer's weights are random numbers drawn one at a time: past these sizes it only
// takes seconds and gigabytes to show random heads (d_model 8192 is 1 GiB of weights). Checkpoints
// and --weights files may be wider (AttentionConfig::validate's limits).
constexpr int kMaxSyntheticDModel = 4096;
constexpr int64_t kMaxSyntheticParams = int64_t(1) << 27;  // 512 MiB of float32

// Throws InputError naming the size and the limit when the synthetic layer would be larger.
void check_synthetic_size(const AttentionConfig& c);

}  // namespace hs
