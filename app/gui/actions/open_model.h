#pragma once
// Opening a pretrained checkpoint from inside the app: what the Model source switch, the path and
// tokenizer boxes, recent models and the "continue N tokens" control (panels/panel_open_model.cpp)
// do to the state, and what the main loop does with the worker's answer to an open (keep the
// shown model on failure).
#include <string>

#include "app/gui/state/app_state.h"
#include "core/model/pretrained.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

constexpr int kMaxRecentModels = 8;
constexpr int kMaxGenerate = 256;

// The llama2.c tokenizer beside a checkpoint file, as the loader picks it (core's
// find_llama2c_tokenizer on the trimmed box text); "" for folders or when there is none.
std::string tokenizer_beside(const std::string& checkpoint);

// A path box's text without the spaces and line breaks around it (a pasted path).
std::string trimmed_path(const std::string& box);

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
// the open box. Returns true when the request now equals `shown->analysis->request` (nothing to resubmit).
bool keep_shown_model(AppState& state, const Derived* shown, const std::string& error);

// The file or folder being loaded while the worker is busy with a model other than the one
// on screen, "" otherwise (the status line shows a spinner and "loading <name>…").
std::string model_being_loaded(const AppState& state, const UiContext& ui);

}  // namespace hs::gui
