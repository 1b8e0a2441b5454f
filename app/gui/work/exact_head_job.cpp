#include "app/gui/work/exact_head_job.h"

#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <new>

#include "core/analysis/map_region.h"

namespace hs::gui {

int64_t resident_bytes() {
  std::ifstream in("/proc/self/statm");
  int64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * int64_t(sysconf(_SC_PAGESIZE));
}

std::string memory_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) bytes /= 1024.0, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return text;
}

ExactHeadJob::ExactHeadJob() : jobs_([this](Job job, const Shell::Control& c) { run(std::move(job), c); }) {}

std::string ExactHeadJob::open(std::shared_ptr<const RunAnalysis> analysis, int layer, int head, int64_t budget_bytes,
                               int64_t resident) {
  const int64_t T = analysis->run.n_tokens();
  const int64_t need = T * T * int64_t(sizeof(float));
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t freed = status_.map ? status_.bytes : 0;  // the map it replaces goes
  status_ = ExactHeadStatus{};
  status_.analysis = analysis.get(), status_.layer = layer, status_.head = head;
  held_ = analysis;
  if (resident - freed + need > budget_bytes) {
    // budget = in use + the new map would pass it: refused with the numbers.
    status_.refused = "L" + std::to_string(layer) + " h" + std::to_string(head) + ": the exact " + std::to_string(T) + " x " +
                      std::to_string(T) + " map needs " + memory_text(double(need)) + "; " + memory_text(double(resident - freed)) +
                      " in use, memory budget " + memory_text(double(budget_bytes)) + " (View > Memory budget)";
    jobs_.cancel();
    return status_.refused;
  }
  status_.running = true;
  status_.total = int(T);
  jobs_.submit({std::move(analysis), layer, head}, true);  // a running map stops at its next block
  return "";
}

void ExactHeadJob::keep_only(const RunAnalysis* shown) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!held_ || held_.get() == shown) return;
  jobs_.cancel();
  status_ = ExactHeadStatus{};
  held_.reset();
}

ExactHeadStatus ExactHeadJob::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  ExactHeadStatus s = status_;
  if (s.running) {
    const JobProgress p = jobs_.newest_progress();  // not a cancelled job's count
    s.done = p.done, s.total = p.total > 0 ? p.total : s.total;
  }
  return s;
}

void ExactHeadJob::run(Job job, const Shell::Control& control) {
  std::shared_ptr<const RegionMap> map;
  bool finished = false;
  std::string error;
  try {
    Map cells;  // [T, T]
    finished = exact_head_map(job.analysis->run, job.layer, job.head, cells,
                              [&control](int done, int total) { return control.progress(done, total); });
    if (finished) map = std::make_shared<const RegionMap>(whole_map_region(job.analysis->run, std::move(cells)));
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (control.generation() != jobs_.submitted() || !status_.running) return;  // replaced or refused since
  status_.running = false;
  status_.error = std::move(error);
  if (finished && status_.error.empty()) {
    status_.bytes = int64_t(map->cells.size()) * int64_t(sizeof(float));
    status_.done = status_.total;
    status_.map = std::move(map);
  } else if (status_.error.empty()) {
    status_.cancelled = true;
    status_.done = jobs_.progress().done;
  }
}

}  // namespace hs::gui
