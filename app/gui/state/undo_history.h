#pragma once
// Undo and redo of what the user set: the sentence and model settings, the selected layer and
// head, the view, the colour scale and view options. A snapshot is taken when the state settles
// (no control held, no text being typed) and differs from the current entry; Ctrl+Z steps back,
// Ctrl+Shift+Z (or Ctrl+Y) forward. Zoom, dialogs and lesson playback are not undone.
#include <memory>
#include <vector>

namespace hs::gui {

struct AppState;
struct UndoSnapshot;  // undo_snapshot.h

struct UndoHistory {
  std::vector<std::shared_ptr<const UndoSnapshot>> entries;  // oldest first
  int index = -1;                                             // the entry the state is at
};

constexpr int kMaxUndoEntries = 200;

// Records the state when it differs from the current entry (drops the redo entries past it).
// `settled`: no control is held and no text is being typed (the caller knows).
void record_undo(AppState& state, bool settled = true);
// Steps back / forward; false when there is nothing to undo / redo.
bool undo(AppState& state);
bool redo(AppState& state);
bool can_undo(const AppState& state);
bool can_redo(const AppState& state);

}  // namespace hs::gui
