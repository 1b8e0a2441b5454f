#pragma once
// The Contrast view's logit difference and activation patching (core/analysis/pair_target.h), run
// off the UI thread (app/gui/work/patching_job.h): the two continuations' boxes with the Run button
// or the progress bar, the logit difference after A and after B, and the layers x heads grid of
// the share of the gap each head restores.
#include "app/gui/state/app_state.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// The patching result for what the screen shows (sentences, model, continuations), or null.
const PairAnswer* shown_patching(const AppState& state, const UiContext& ui);

// "target [ are] versus [ is]  Run patching (L x H passes)" or the progress bar and Cancel; then,
// with a current result, the logit differences and the notes. Nothing for a model that predicts
// no next token (the synthetic layer, --weights, encoders, maps from a file).
void draw_patching_controls(AppState& state, const UiContext& ui);

// Every layer x head's share (null shares blank); a click selects that layer and head.
void draw_patching_grid(AppState& state, const UiContext& ui, const PairAnswer& answer, ImVec2 size);

// The width draw_patching_grid wants at `height` for a model of layers x heads.
float patching_grid_width(int layers, int heads, float height);

}  // namespace hs::gui
