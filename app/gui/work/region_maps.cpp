#include "app/gui/work/region_maps.h"

#include <exception>

namespace hs::gui {

RegionMaps::RegionMaps() : thread_([this] { loop(); }) {}

RegionMaps::~RegionMaps() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

namespace {

template <typename Entries>
const typename Entries::value_type* find(const Entries& entries, const RegionRequest& r) {
  for (const auto& e : entries)
    if (e.request == r) return &e;
  return nullptr;
}

template <typename T>
void keep_last(std::vector<T>& v, size_t n) {
  if (v.size() > n) v.erase(v.begin(), v.end() - long(n));
}

}  // namespace

std::shared_ptr<const RegionMap> RegionMaps::get(const RegionRequest& request) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (const Entry* e = find(done_, request)) return e->map;
  if (const Entry* e = find(coarse_, request)) return e->map;
  // The display blocks at once (cheap), while the exact cells are computed.
  lock.unlock();
  auto coarse = std::make_shared<const RegionMap>(
      coarse_region(request.analysis->run, request.layer, request.head, request.region, request.max_cells));
  lock.lock();
  if (coarse->exact) {  // whole maps: nothing finer to compute
    done_.push_back({request, coarse});
    keep_last(done_, kKept);
    return coarse;
  }
  coarse_.push_back({request, coarse});
  keep_last(coarse_, kKept);
  pending_.push_back(request);
  keep_last(pending_, kKept);
  wake_.notify_all();
  return coarse;
}

bool RegionMaps::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computing_ || !pending_.empty();
}

void RegionMaps::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !computing_ && pending_.empty(); });
}

void RegionMaps::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !pending_.empty(); });
    if (stop_) return;
    RegionRequest r = std::move(pending_.back());  // the newest first: what the view shows now
    pending_.pop_back();
    computing_ = true;
    lock.unlock();
    std::shared_ptr<const RegionMap> map;
    try {
      map = std::make_shared<const RegionMap>(exact_region(r.analysis->run, r.layer, r.head, r.region, r.max_cells));
    } catch (const std::exception&) {
      map = nullptr;  // out of memory or a stale index: the coarse region stays on screen
    }
    lock.lock();
    computing_ = false;
    if (map) {
      done_.push_back({std::move(r), std::move(map)});
      keep_last(done_, kKept);
    }
    if (pending_.empty()) idle_.notify_all();
  }
}

std::shared_ptr<const RegionMap> region_now(RegionMaps* maps, const RegionRequest& request) {
  if (maps) return maps->get(request);
  return std::make_shared<const RegionMap>(
      exact_region(request.analysis->run, request.layer, request.head, request.region, request.max_cells));
}

}  // namespace hs::gui
