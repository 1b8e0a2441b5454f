#pragma once
// One head opened exactly in long-input mode: its whole [T, T] map, computed off the UI thread from
// the run's q and k (core/analysis/map_region.h exact_head_map; app/gui/work/exact_head_job.h), with
// progress and cancel, under the memory budget (AppState::memory_budget_mib). The Single head view
// shows it in place of the block maxima and zooms into it; the status line shows the memory in use.
#include <cstdint>
#include <memory>
#include <string>

#include "core/analysis/map_region.h"

namespace hs {
struct RunAnalysis;
}

namespace hs::gui {

struct ExactHeadStatus {
  const RunAnalysis* analysis = nullptr;  // the result the head belongs to (compared, never read)
  int layer = -1, head = -1;
  bool running = false;
  int done = 0, total = 0;           // query rows computed, of T
  // [T, T] exact A_h once finished (a region of factor 1 over every token); null while running,
  // cancelled or refused.
  std::shared_ptr<const RegionMap> map;
  bool cancelled = false;            // stopped by Cancel before the last row
  std::string refused;               // over the memory budget: the numbers ("" when not refused)
  std::string error;                 // a failure (out of memory): said in the view
  int64_t bytes = 0;                 // what the finished map holds (T^2 floats)

  bool is_for(const RunAnalysis* a, int l, int h) const { return analysis == a && layer == l && head == h; }
};

}  // namespace hs::gui
