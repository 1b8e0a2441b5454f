#pragma once
// Export in long-input mode (core/analysis/long_input.h): no whole T x T map exists, so the
// heatmap and overview views export each head's display map of block maxima, labelled as such:
//   figures  the title names "block maxima of f x f tokens", the colour bar "block maximum of f x f
//            cells" (unless the style sets its own label); axis labels are the blocks' token ranges
//   .csv     a first line "# block maximum of f x f cells (long-input mode: REASON)", then the
//            tables of export_data.h with block labels
//   .npy     the block maxima ([P, P] or [n_layers, n_heads, P, P]) and a sidecar
//            NAME.blocks.json: {"block_maxima": true, "block_size": f, "tokens": T, "display_size": P,
//            "reason": ..., "block_labels": [...]}
//   .json    the long-input object of `headscope-cli maps --long-input --json` (maps_json.h)
#include <string>

#include "core/analysis/run_analysis.h"

namespace hs {

// "block maximum of 3 x 3 cells".
std::string block_maxima_label(const AttentionRun& run);

// The run as whole-looking maps for the figures and tables: tokens are the block labels
// ("0-2", "3-5", ...), attention the block maxima, the model name followed by "(block maxima of
// f x f tokens)". A window mask is dropped (a block is not masked as a whole); causal is kept
// (blocks above the diagonal are wholly masked).
RunAnalysis block_maxima_run(const RunAnalysis& analysis);

// The .npy sidecar's path ("a/maps.npy" -> "a/maps.blocks.json") and its JSON text.
std::string block_maxima_sidecar_path(const std::string& npy_path);
std::string block_maxima_sidecar_json(const RunAnalysis& analysis);

}  // namespace hs
