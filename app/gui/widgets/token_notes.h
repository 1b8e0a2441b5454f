#pragma once
// How tokens of a pretrained run are marked: generated tokens (after run.prompt_tokens) in
// their own colour, and what the model expects after each position (run.next_tokens).
#include <imgui.h>

#include <string>

#include "core/model/model_run.h"

namespace hs::gui {

// True for a token the model generated (not typed by the user).
bool is_generated(const AttentionRun& run, int i);

// Index of the first generated token, -1 when nothing was generated (HeatmapSpec::first_generated).
int first_generated(const AttentionRun& run);

// Colour of generated tokens' chips and axis labels.
ImVec4 generated_colour_vec();
ImU32 generated_colour();

// "▁time" -> " time": the text a run of token labels spells (byte tokens stay "<0x0A>").
std::string spelled_text(const AttentionRun& run, int from, int to);

// "expects \"▁upon\" next (and \"▁upon\" follows)" for position i; "" without predictions.
std::string next_token_note(const AttentionRun& run, int i);

// One dim line for the selected query token: what the model expects after it.
void draw_next_token_line(const AttentionRun& run, int query);

}  // namespace hs::gui
