#pragma once
// Text for axes, tooltips and the status line: abbreviated tokens, counts, sizes, ticks.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/map_region.h"
#include "core/analysis/run_analysis.h"
#include "core/text/token_label.h"
#include "core/util/format.h"  // format(), format_count(): in hs, found from hs::gui

namespace hs::gui {

// Tokens as the screen shows them, by the rule figures use too (core/text/token_label.h): a space a
// thin dot or nothing, byte pieces as the character they spell on the token that completes it,
// a character the font atlas lacks named "U+1F600". tokens[i] among its neighbours:
std::string display_token(const std::vector<std::string>& tokens, size_t i);
// One token alone (a prediction, a chip without neighbours).
std::string display_token(const std::string& token);
// What a token's byte pieces spell ("bytes <0xE6><0x88><0x91> (tokens 3-5) spell ..."), "" without.
std::string token_bytes_hint(const std::vector<std::string>& tokens, size_t i);

// The space mark of every label above: AppState::space_mark, set by the frame loop before the
// panels draw (one display preference for the whole window, like ImGui's style).
void set_label_space_mark(SpaceMark mark);
// The rule as the screen applies it now: the space mark, and the current font's glyphs as drawable.
TokenLabelOptions screen_label_options();

// At most `max_chars` code points; longer tokens end in "\u2026".
std::string abbreviate(const std::string& text, int max_chars);

// "64 B", "1.5 KiB", "3.2 MiB"
std::string format_bytes(int64_t bytes);

// A weight with 3 significant digits: "0.123", "1.2e-05".
std::string format_weight(float w);

// Up to `max_ticks` round values covering [lo, hi], including both ends when they are round.
std::vector<float> nice_ticks(float lo, float hi, int max_ticks);

// What a lesson block shows, named above it: the model and, when it has several, the layer:
// "teaching model, layer 0", "stories260K, layer 3", "random weights, seed 7" (the synthetic
// layer), "weights.safetensors" (--weights).
std::string block_source(const RunAnalysis& a, int layer);

// "h3" or "L1 h3" when the model has several layers.
std::string head_name(int layer, int head, int n_layers);

// Tooltip text for cell (row, col) of a map of `a` holding `value`: the query and key tokens and
// the weight, or in long-input mode block_text() of the block the cell shows.
std::string cell_text(const RunAnalysis& a, int row, int col, float value, const char* what = "weight", int layer = -1,
                      int head = -1);

// A block of tokens (long-input mode, a zoomed map's block): its first ... last query and key
// tokens, the block's largest `what`, and, given a layer and head (>= 0), its strongest cell found
// exactly (query and key tokens); then the text around the queries and around the keys.
std::string block_text(const RunAnalysis& a, TokenRegion block, float value, const char* what = "weight", int layer = -1,
                       int head = -1);

// One exact cell: query and key tokens and the weight.
std::string token_cell_text(const RunAnalysis& a, int query, int key, float value, const char* what = "weight");

// The text around tokens [first, end): up to `context` tokens each side, the tokens themselves
// in brackets (a long block shortened to its first and last three).
std::string text_around(const AttentionRun& run, int first, int end, int context = 6);

}  // namespace hs::gui
