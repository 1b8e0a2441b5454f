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
  bool operator==(const RegionRequest& o) const {
    return analysis == o.analysis && layer == o.layer && head == o.head && region == o.region && max_cells == o.max_cells;
  }
};

}  // namespace hs::gui
