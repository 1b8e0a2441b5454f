#pragma once
// The lesson player: shipped lessons (assets/lessons/*.json, embedded at build time) or a
// teacher's own file; stepping applies each step's session to AppState; controls a step does
// not unlock are locked; a step's compare entries become extra worker requests.
#include <memory>
#include <string>
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"

namespace hs::gui {

// File names of the shipped lessons ("multi_head_attention.json"), in build order.
std::vector<std::string> shipped_lessons();

// A shipped lesson by file name (with or without .json), else a lesson file on disk.
// Throws hs::Error (FormatError naming file, step and key).
std::shared_ptr<const Lesson> find_lesson(const std::string& name_or_path);

// Starts the lesson at `step` (0-based, clamped) and applies that step.
void start_lesson(AppState& state, std::shared_ptr<const Lesson> lesson, int step = 0);
void stop_lesson(AppState& state);

// Moves to another step (clamped) and applies its session. A step that needs a pretrained
// model keeps the checkpoint the user has loaded. The step's state counts as saved
// (unsaved_guard.h): stepping on does not ask, starting a lesson (ask_action) does.
void go_to_step(AppState& state, int step);

// The active step, or null.
const LessonStep* active_step(const AppState& state);

// True when a lesson step is active and does not list `control` in its `unlocked`.
bool control_locked(const AppState& state, LessonControl control);

// True when the view's tab may be chosen: no lesson, or the step unlocks "panel" or
// "tab:<view>" (e.g. "tab:difference"), or it is the step's own view.
bool tab_unlocked(const AppState& state, View view);

// Opens head (layer, head) in the Single head view, as clicking a map does anywhere. A lesson step
// that keeps its tab (the Single head tab locked) opens it in place in the Heads grid instead, and
// elsewhere only selects it.
void open_head(AppState& state, int layer, int head);

// The active step's compare entries as worker requests (empty without a lesson).
std::vector<CompareRequest> compare_requests(const AppState& state);

// True when both lists would give the same engine results.
bool same_compare(const std::vector<CompareRequest>& a, const std::vector<CompareRequest>& b);

// Keyboard: Right/PageDown next step, Left/PageUp previous, Home first, C toggles captions,
// F5 presentation mode, Esc leaves it; presenting: Ctrl +/- scales text and maps together,
// P the pointer ring, H hides the maps / shows them again (Space also shows them). Returns
// true when it used the arrows.
bool handle_lesson_keys(AppState& state);

// RAII: ImGui::BeginDisabled while `control` is locked by the active lesson step.
class LockScope {
 public:
  LockScope(const AppState& state, LessonControl control);
  ~LockScope();
  LockScope(const LockScope&) = delete;
  LockScope& operator=(const LockScope&) = delete;

 private:
  bool locked_;
};

}  // namespace hs::gui
