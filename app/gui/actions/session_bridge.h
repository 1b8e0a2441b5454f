#pragma once
// AppState <-> session file (core/session/session_file.h), and what happens to a file dropped on the
// window or named on the command line: a .json opens as a session, anything else (a file or a
// Hugging Face folder) as a model checkpoint, as --model does.
#include <string>
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/state/status.h"
#include "core/session/session_file.h"

namespace hs::gui {

// The session a person sees now: request, view, selection and colour scale.
Session session_from_state(const AppState& state);

// Sets the request, view, selection and scale from a session; everything else is left alone.
void apply_session(AppState& state, const Session& session);

// folder + file name of the session box ("" folder: the file name alone).
std::string session_path(const SessionPanelState& s);

// The session and lesson files in `folder` ("" = the current folder): its .json files that start
// as a session or lesson does ("format": "headscope-session" / "headscope-lesson"), by name; at
// most `most` of them, from at most 4096 directory entries. A folder that cannot be read lists
// nothing.
std::vector<std::string> list_session_files(const std::string& folder, int most = 200);
// A session opened or saved goes first in state.session.recent (at most kMaxRecentSessions).
constexpr int kMaxRecentSessions = 8;
void remember_recent_session(AppState& state, const std::string& path);

// Opens PATH: a lesson file starts its lesson, another .json is a session (load_session),
// anything else a checkpoint (file or folder).
// Throws hs::Error and leaves the state alone when the file is bad.
void open_path(AppState& state, const std::string& path);

// Back to the first screen (first_screen_state; File > New session): request, view, scale; no lesson.
void reset_session(AppState& state);

// The commands of app/gui/state/commands.h that session files and dropped files ask for; outcomes
// and errors go to the status line.
// OpenFiles: a session file among `paths` asks first when the session has unsaved changes
// (unsaved_guard.h); checkpoints alone open at once.
void open_files(AppState& state, std::vector<std::string> paths, StatusInfo& status);
// SaveSession: to the session box's folder and file name; a "Save..." from the unsaved popup
// then lets its action run (or, when the save failed, drops it).
void save_session_file(AppState& state, StatusInfo& status);
// RunGuarded: an open, lesson start, new session or quit the unsaved guard let through.
void run_guarded(AppState& state, const GuardedAction& action, StatusInfo& status);
// Every frame: a "Save..." whose save dialog was closed without saving drops its action.
void drop_unsaved_save(AppState& state);

}  // namespace hs::gui
