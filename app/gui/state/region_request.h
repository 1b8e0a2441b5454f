#pragma once
// A zoomed region of one head's map in a result: what app/gui/work/region_maps.h computes.
#include <memory>

#include "core/analysis/map_region.h"
#include "core/analysis/run_analysis.h"

namespace hs::gui {

struct RegionRequest {
  std::shared_ptr<const RunAnalysis> analysis;
  int layer = 0, head = 0;
  TokenRegion region;
  int max_cells = 0;
  // The head's exact whole map when it is opened (exact_head_status.h): regions are cut from it at
  // once. Not part of the request's identity (the cells are the same either way).
  std::shared_ptr<const RegionMap> opened;
  bool operator==(const RegionRequest& o) const {
    return analysis == o.analysis && layer == o.layer && head == o.head && region == o.region && max_cells == o.max_cells;
  }
};

}  // namespace hs::gui
