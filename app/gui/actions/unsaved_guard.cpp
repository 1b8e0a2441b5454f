#include "app/gui/actions/unsaved_guard.h"

#include <cmath>
#include <filesystem>

#include "app/gui/actions/session_bridge.h"

namespace hs::gui {

bool same_session(const Session& a, const Session& b) {
  return same_model_request(a.request, b.request) && a.view == b.view && a.contrast == b.contrast &&
         a.target == b.target && a.versus == b.versus && a.model_b == b.model_b && a.tokenizer_b == b.tokenizer_b;
}

bool session_dirty(const AppState& state) {
  return state.unsaved.saved && !same_session(*state.unsaved.saved, session_from_state(state));
}

void mark_session_clean(AppState& state) { state.unsaved.saved = session_from_state(state); }

void ask_action(AppState& state, GuardedAction action) {
  UnsavedState& u = state.unsaved;
  if (action.kind == GuardedKind::none) return;
  if (u.waiting.kind != GuardedKind::none) {
    // The popup is up (or the save dialog it opened): only a quit takes the place of what waits.
    if (action.kind == GuardedKind::quit) u.waiting = std::move(action);
    return;
  }
  if (!session_dirty(state)) {
    state.commands.push(RunGuarded{std::move(action)});
    return;
  }
  u.waiting = std::move(action);
  u.save_first = false;
}

bool unsaved_popup_wanted(const AppState& state) {
  return state.unsaved.waiting.kind != GuardedKind::none && !state.unsaved.save_first;
}

void answer_unsaved(AppState& state, UnsavedChoice choice) {
  UnsavedState& u = state.unsaved;
  if (u.waiting.kind == GuardedKind::none) return;
  switch (choice) {
    case UnsavedChoice::save:
      u.save_first = true;
      state.session.dialog = SessionDialog::save;
      break;
    case UnsavedChoice::discard:
      state.commands.push(RunGuarded{std::move(u.waiting)});
      u.waiting = {};
      break;
    case UnsavedChoice::cancel:
      u.waiting = {};
      break;
  }
}

void saved_for_unsaved(AppState& state, bool ok) {
  UnsavedState& u = state.unsaved;
  if (!u.save_first) return;
  u.save_first = false;
  if (ok) state.commands.push(RunGuarded{std::move(u.waiting)});
  u.waiting = {};
}

std::vector<GuardedAction> take_ready_actions(AppState& state) {
  std::vector<GuardedAction> out;
  std::vector<Command> queued = state.commands.take();
  for (Command& c : queued) {
    if (auto* run = std::get_if<RunGuarded>(&c)) out.push_back(std::move(run->action));
    else state.commands.push(std::move(c));
  }
  return out;
}

std::string describe_action(const GuardedAction& action) {
  switch (action.kind) {
    case GuardedKind::open: {
      std::string names;
      for (const std::string& p : action.paths)
        names += (names.empty() ? "" : ", ") + std::filesystem::path(p).filename().string();
      return "open " + names;
    }
    case GuardedKind::start_lesson: return "start the lesson" + (action.lesson ? " \"" + action.lesson->title + "\"" : std::string());
    case GuardedKind::reset: return "start a new session";
    case GuardedKind::quit: return "quit";
    case GuardedKind::none: break;
  }
  return "continue";
}

GuardedAction open_action(std::vector<std::string> paths) {
  GuardedAction a;
  a.kind = GuardedKind::open;
  a.paths = std::move(paths);
  return a;
}

GuardedAction lesson_action(std::shared_ptr<const Lesson> lesson, int step) {
  GuardedAction a;
  a.kind = GuardedKind::start_lesson;
  a.lesson = std::move(lesson);
  a.step = step;
  return a;
}

GuardedAction reset_action() {
  GuardedAction a;
  a.kind = GuardedKind::reset;
  return a;
}

GuardedAction quit_action() {
  GuardedAction a;
  a.kind = GuardedKind::quit;
  return a;
}

}  // namespace hs::gui
