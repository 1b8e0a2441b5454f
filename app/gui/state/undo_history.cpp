#include "app/gui/state/undo_history.h"

#include "app/gui/state/app_state.h"
#include "app/gui/state/undo_snapshot.h"

namespace hs::gui {

namespace {

UndoSnapshot snapshot(const AppState& s) {
  UndoSnapshot u;
  u.request = s.request;
  u.view = s.view;
  u.layer = s.layer, u.head = s.head;
  u.scale = s.scale;
  u.all_layers = s.grid.all_layers, u.per_head_range = s.grid.per_head_range;
  u.show_values = s.head_view.show_values, u.layer_range = s.head_view.layer_range;
  u.rollout = s.average.rollout;
  u.queries = s.query.queries;
  return u;
}

void apply(AppState& s, const UndoSnapshot& u) {
  s.request = u.request;
  if (s.view != u.view) request_view(s, u.view);
  s.layer = u.layer, s.head = u.head;
  s.scale = u.scale;
  s.grid.all_layers = u.all_layers, s.grid.per_head_range = u.per_head_range;
  s.head_view.show_values = u.show_values, s.head_view.layer_range = u.layer_range;
  s.average.rollout = u.rollout;
  s.query.queries = u.queries;
}

}  // namespace

void record_undo(AppState& state, bool settled) {
  UndoHistory& h = state.undo;
  if (!settled) return;
  UndoSnapshot now = snapshot(state);
  if (h.index >= 0 && *h.entries[size_t(h.index)] == now) return;
  h.entries.resize(size_t(h.index + 1));  // a new change drops what could be redone
  h.entries.push_back(std::make_shared<const UndoSnapshot>(std::move(now)));
  if (int(h.entries.size()) > kMaxUndoEntries) h.entries.erase(h.entries.begin());
  h.index = int(h.entries.size()) - 1;
}

bool can_undo(const AppState& state) { return state.undo.index > 0; }
bool can_redo(const AppState& state) { return state.undo.index + 1 < int(state.undo.entries.size()); }

bool undo(AppState& state) {
  if (!can_undo(state)) return false;
  apply(state, *state.undo.entries[size_t(--state.undo.index)]);
  return true;
}

bool redo(AppState& state) {
  if (!can_redo(state)) return false;
  apply(state, *state.undo.entries[size_t(++state.undo.index)]);
  return true;
}

}  // namespace hs::gui
