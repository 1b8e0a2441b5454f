#pragma once
// What one undo step restores (undo_history.h): the request (but fit_context, which the app sets
// on every run), the view, the selection, the colour scale and the view options. Two snapshots are
// the same step when every field in tie() is equal (a field added here goes into tie() too:
// tests/app/gui_logic_test.cpp counts them).
#include <tuple>
#include <vector>

#include "core/export/view_registry.h"
#include "core/analysis/run_analysis.h"
#include "core/model/model_request.h"
#include "core/render/colour_scale.h"
#include "core/util/same_fields.h"

namespace hs::gui {

struct UndoSnapshot {
  ModelRequest request;
  View view = View::heads;
  int layer = 0, head = 0;
  ColourScale scale;
  bool all_layers = false, per_head_range = false;  // GridPanelState's
  bool show_values = false, layer_range = false;    // HeadPanelState's
  bool rollout = false;
  std::vector<int> queries;

  // Every field, the request's but fit_context (the app sets it on every run).
  auto tie() const {
    return std::tuple_cat(request.input_tie(), std::tie(view, layer, head, scale, all_layers, per_head_range, show_values,
                                                        layer_range, rollout, queries));
  }
  bool operator==(const UndoSnapshot& o) const { return same_fields(tie(), o.tie()); }
};

}  // namespace hs::gui
