#pragma once
// Opening a pretrained checkpoint from inside the app: the Model source switch, the path and
// tokenizer boxes, recent models, the "continue N tokens" control (panel_open_model.cpp), and
// what the main loop does with the worker's answer to an open (keep the shown model on failure).
#include <string>

#include "app/gui/app_state.h"
#include "app/gui/ui_context.h"

namespace hs::gui {

constexpr int kMaxRecentModels = 8;
constexpr int kMaxGenerate = 256;

// The model part of the sidebar: source switch, boxes, Open, recent models, model info,
// layer selector, continue control. Draws nothing for the synthetic shape controls.
void draw_open_model(AppState& state, const UiContext& ui);  // panel_open_model.cpp

// The llama2.c tokenizer beside a checkpoint file: tokenizer.bin or tok<vocab>.bin (vocab read
// from the .bin header), as the loader would pick it; "" for folders or when there is none.
std::string tokenizer_beside(const std::string& checkpoint);

// "stories260K.bin" for a file, "gpt2" for a folder (trailing slashes ignored).
std::string model_display_name(const std::string& path);

// Copies the boxes into the request (trimmed). Returns false, with state.open_model.error set,
// when the path box is empty.
bool open_model_from_boxes(AppState& state);

// Puts `m` first in the recent list (no duplicates, at most kMaxRecentModels).
void remember_recent_model(AppState& state, const RecentModel& m);

// Main loop, after a good result: a checkpoint that loaded joins the recent list and clears the
// open error.
void note_good_result(AppState& state, const Derived& shown);

// Main loop, after a failed result: when the request named another model than the one on
// screen, the shown model goes back into the request (its maps stay) and the error is kept for
// the open box. Returns true when the request now equals `shown->request` (nothing to resubmit).
bool keep_shown_model(AppState& state, const Derived* shown, const std::string& error);

// The file or folder being loaded while the worker is busy with a model other than the one
// on screen, "" otherwise (the status line shows a spinner and "loading <name>…").
std::string model_being_loaded(const AppState& state, const UiContext& ui);

// A small spinning arc at the cursor, animated from ImGui::GetTime() (no state).
void draw_spinner(float radius);

}  // namespace hs::gui
