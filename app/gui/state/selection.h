#pragma once
// Keeps the selection inside what Derived has (layers, heads, tokens shrink when settings change).
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"

namespace hs::gui {

void clamp_selection(AppState& state, const Derived& derived);

// A comparison with a new model B (one the view has not shown) selects its most changed head
// (rank 1 of core's change_ranks), as `headscope-cli compare --model-b --out` draws it.
void select_most_changed_model_head(AppState& state, const Derived& derived);

// Query heads per key/value group (1 for plain multi-head attention).
int heads_per_group(const ModelInfo& info);

}  // namespace hs::gui
