#include "app/gui/work/region_maps.h"

#include <algorithm>
#include <exception>

namespace hs::gui {
namespace {

template <typename Entries>
const typename Entries::value_type* find_entry(const Entries& entries, const RegionRequest& r) {
  for (const auto& e : entries)
    if (e.request == r) return &e;
  return nullptr;
}

template <typename T>
void keep_last(std::vector<T>& v, size_t n) {
  if (v.size() > n) v.erase(v.begin(), v.end() - long(n));
}

}  // namespace

RegionMaps::RegionMaps() : jobs_([this](RegionRequest r, const JobShell<RegionRequest>::Control&) { compute(r); }, kKept) {}

std::shared_ptr<const RegionMap> RegionMaps::find(const RegionRequest& request) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (const Entry* e = find_entry(done_, request)) return e->map;
  if (const Entry* e = find_entry(coarse_, request)) return e->map;
  return nullptr;
}

void RegionMaps::add(const RegionRequest& asked, std::shared_ptr<const RegionMap> coarse) {
  RegionRequest request = asked;
  request.opened.reset();  // an opened head's map is not kept alive by its regions
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (find_entry(done_, request)) return;  // asked twice in a frame
    if (coarse->exact) {  // whole maps or an opened head: nothing finer to compute
      coarse_.erase(std::remove_if(coarse_.begin(), coarse_.end(), [&](const Entry& e) { return e.request == request; }),
                    coarse_.end());
      done_.push_back({request, std::move(coarse)});
      keep_last(done_, kKept);
      return;
    }
    if (find_entry(coarse_, request)) return;
    coarse_.push_back({request, std::move(coarse)});
    keep_last(coarse_, kKept);
  }
  jobs_.submit(request);
}

void RegionMaps::compute(const RegionRequest& r) {
  std::shared_ptr<const RegionMap> map;
  try {
    map = std::make_shared<const RegionMap>(exact_region(r.analysis->run, r.layer, r.head, r.region, r.max_cells));
  } catch (const std::exception&) {
    return;  // out of memory or a stale index: the coarse region stays on screen
  }
  std::lock_guard<std::mutex> lock(mutex_);
  done_.push_back({r, std::move(map)});
  keep_last(done_, kKept);
}

std::shared_ptr<const RegionMap> shown_region(const RegionMaps* maps, const RegionRequest& request, CommandQueue& commands) {
  if (!maps && request.opened)
    return std::make_shared<const RegionMap>(region_of_map(request.analysis->run, request.opened->cells, request.region, request.max_cells));
  if (!maps) {
    return std::make_shared<const RegionMap>(
        exact_region(request.analysis->run, request.layer, request.head, request.region, request.max_cells));
  }
  if (std::shared_ptr<const RegionMap> kept = maps->find(request); kept && kept->exact) return kept;
  if (request.opened) {
    // The opened head's exact map: the region's cells at once, kept like a computed one.
    auto cut = std::make_shared<const RegionMap>(region_of_map(request.analysis->run, request.opened->cells, request.region, request.max_cells));
    commands.push(ComputeRegion{request, cut});
    return cut;
  }
  if (std::shared_ptr<const RegionMap> kept = maps->find(request)) return kept;
  // The display blocks at once (cheap), while the exact cells are computed.
  auto coarse = std::make_shared<const RegionMap>(
      coarse_region(request.analysis->run, request.layer, request.head, request.region, request.max_cells));
  commands.push(ComputeRegion{request, coarse});
  return coarse;
}

}  // namespace hs::gui
