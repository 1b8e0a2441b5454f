#pragma once
// Zoomed maps off the UI thread: a zoomed region of a long input is recomputed exactly from the
// run's q and k (core/analysis/map_region.h), which can take longer than a frame. get() answers at
// once with the finished region when it matches, else starts computing it (the newest requests
// win; a view may ask for a few regions a frame, e.g. two heads side by side) and answers with
// the coarse region (the display blocks) meanwhile.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

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

class RegionMaps {
 public:
  RegionMaps();
  ~RegionMaps();
  RegionMaps(const RegionMaps&) = delete;
  RegionMaps& operator=(const RegionMaps&) = delete;

  // The region of `request`, exact when it is ready; meanwhile coarse (RegionMap::exact false).
  std::shared_ptr<const RegionMap> get(const RegionRequest& request);
  bool busy() const;
  void wait_idle();  // screenshots and tests

 private:
  void loop();

  struct Entry {
    RegionRequest request;
    std::shared_ptr<const RegionMap> map;
  };
  static constexpr size_t kKept = 6;  // finished and coarse regions kept, newest last

  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::vector<RegionRequest> pending_;  // newest last, at most kKept
  bool computing_ = false, stop_ = false;
  std::vector<Entry> done_, coarse_;
  std::thread thread_;
};

// The region now: from `maps` (off the UI thread) when given, else computed here (headless tests).
std::shared_ptr<const RegionMap> region_now(RegionMaps* maps, const RegionRequest& request);

}  // namespace hs::gui
