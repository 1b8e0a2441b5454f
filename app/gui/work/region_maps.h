#pragma once
// Zoomed maps off the UI thread: a zoomed region of a long input is recomputed exactly from the
// run's q and k (core/analysis/map_region.h), which can take longer than a frame. A panel asks
// shown_region(): the finished region when it matches, else the coarse region (the display
// blocks, computed at once) and a ComputeRegion command, which the frame loop hands to add().
// The exact regions are computed in a job shell (job_shell.h): the newest requests first, a few
// kept (a view may ask for a few regions a frame, e.g. two heads side by side).
#include <memory>
#include <mutex>
#include <vector>

#include "app/gui/state/commands.h"
#include "app/gui/state/region_request.h"
#include "app/gui/work/job_shell.h"
#include "core/analysis/map_region.h"

namespace hs::gui {

class RegionMaps {
 public:
  RegionMaps();
  RegionMaps(const RegionMaps&) = delete;
  RegionMaps& operator=(const RegionMaps&) = delete;

  // The region of `request` kept here: exact when it is ready, else coarse; null when not asked yet.
  std::shared_ptr<const RegionMap> find(const RegionRequest& request) const;
  // Keeps `coarse` for `request` and, unless it is already exact, computes the exact region.
  void add(const RegionRequest& request, std::shared_ptr<const RegionMap> coarse);
  bool busy() const { return jobs_.busy(); }
  void wait_idle() { jobs_.wait_idle(); }  // screenshots and tests

 private:
  struct Entry {
    RegionRequest request;
    std::shared_ptr<const RegionMap> map;
  };
  static constexpr size_t kKept = 6;  // finished and coarse regions kept, newest last

  void compute(const RegionRequest& r);

  mutable std::mutex mutex_;
  std::vector<Entry> done_, coarse_;
  JobShell<RegionRequest> jobs_;  // last: its thread stops before the entries go
};

// The region a panel shows now: from `maps` when given (a region not asked for yet is coarse
// now, and a ComputeRegion command asks for its exact cells), else exact, computed here
// (headless tests).
std::shared_ptr<const RegionMap> shown_region(const RegionMaps* maps, const RegionRequest& request, CommandQueue& commands);

}  // namespace hs::gui
