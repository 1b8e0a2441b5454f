#pragma once
// No lost work: the session (what session_bridge saves: sentence, model settings, view,
// selection, colour scale) is compared with the one last saved or opened. Opening a session,
// starting a lesson, a new session and quitting replace it; with unsaved changes they wait for
// the "Unsaved changes" popup (panel_unsaved.cpp): Save... (the save dialog, then the action),
// Discard (the action) or Cancel (nothing). No ImGui here: the decisions are plain functions
// of AppState; an action that may run goes onto the command queue (RunGuarded, commands.h) and
// session_bridge carries it out.
#include <memory>
#include <string>
#include <vector>

#include "app/gui/state/app_state.h"

namespace hs::gui {

enum class UnsavedChoice { save, discard, cancel };

// True when the session differs from the one last saved or opened. False before the first
// mark_session_clean (a state nobody has given a baseline has nothing to lose).
bool session_dirty(const AppState& state);

// The session as it is now counts as saved (after a save, an open, a lesson step, the start).
void mark_session_clean(AppState& state);

// The two sessions would look the same (request, view, selection, scale). NaN equals NaN.
bool same_session(const Session& a, const Session& b);

// Asks for an action that would replace the session or quit. Without unsaved changes it is
// ready at once; with them it waits for the popup (a second ask while one waits is ignored,
// except that a quit replaces a waiting open, lesson or new session).
void ask_action(AppState& state, GuardedAction action);

// True while an action waits for the user's answer in the popup.
bool unsaved_popup_wanted(const AppState& state);

// The popup's answer. Save opens the save dialog; the action runs after a successful save.
void answer_unsaved(AppState& state, UnsavedChoice choice);

// The save dialog's outcome while "Save..." is pending: saved (the action becomes ready),
// failed or closed without saving (the action is dropped; nothing is discarded).
void saved_for_unsaved(AppState& state, bool ok);

// Takes the actions that may run now off the command queue, oldest first (the other commands stay).
std::vector<GuardedAction> take_ready_actions(AppState& state);

// What the popup says the action would do: "open session.json", "quit", ...
std::string describe_action(const GuardedAction& action);

// Shorthands.
GuardedAction open_action(std::vector<std::string> paths);
GuardedAction lesson_action(std::shared_ptr<const Lesson> lesson, int step);
GuardedAction reset_action();
GuardedAction quit_action();

}  // namespace hs::gui
