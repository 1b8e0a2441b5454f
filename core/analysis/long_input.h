#pragma once
// One rule for whole T x T maps versus long-input mode, used by the app, headscope-cli and
// export alike (core/analysis/run_analysis.h applies it). Long-input mode keeps no T x T map:
// each head keeps a display map of block maxima, exact per-head numbers and exact rows
// (core/model/compact_maps.h).
#include <cstdint>
#include <string>

namespace hs {

// Whole maps while they (and their scores) stay under this many bytes and the input has at most
// kLongInputTokens tokens; past either, long-input mode.
constexpr double kWholeMapBudgetBytes = 1024.0 * 1024.0 * 1024.0;
constexpr int kLongInputTokens = 2048;

// Display maps: at most this many cells per side (a larger --display-size is refused).
constexpr int kMaxDisplaySize = 4096;

// Bytes whole maps of `maps` heads at `tokens` tokens take, with their scores.
double whole_map_bytes(int64_t tokens, int64_t maps);

// 0 for whole maps, else the display size (cells per side): 1024 for up to 16 maps, 512 for
// more (144 heatmaps of GPT-2 small).
int display_size_for(int64_t tokens, int64_t maps);

// Why a run of this size is in long-input mode ("3000 tokens, more than 2048"), "" when it is not.
std::string long_input_reason(int64_t tokens, int64_t maps);

// Singular values (Head width view, score ranks) are computed up to this many tokens: one SVD of
// a [T, T] matrix per head costs T^3 (seconds per head at T = 2048) ...
constexpr int kSpectrumMaxTokens = 512;
// ... and while maps x T^3 stays under this (12 heads at T = 256; GPT-2's 144 maps at T = 256 would
// take half a minute of SVDs on every keystroke).
constexpr double kSpectrumBudget = 12.0 * 256 * 256 * 256;
bool spectrum_fits(int64_t tokens, int64_t maps);

}  // namespace hs
