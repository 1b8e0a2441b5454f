#pragma once
// The Single head view's exact map in long-input mode, off the UI thread in a job shell
// (job_shell.h): one head's whole [T, T] map recomputed row block by row block from the run's q
// and k (exact_head_map), with progress and Cancel. One map is kept: opening another head
// replaces it (and cancels a running one). Before starting, open() holds the request against the
// memory budget: the process's resident memory now, less the map it replaces, plus the new map's
// T^2 floats; over the budget it is refused with those numbers (ExactHeadStatus::refused).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "app/gui/state/exact_head_status.h"
#include "app/gui/work/job_shell.h"
#include "core/analysis/run_analysis.h"

namespace hs::gui {

// The process's resident memory (bytes; /proc/self/statm), 0 where it cannot be read.
int64_t resident_bytes();

// "1.25 GiB", "64 MiB": bytes for people.
std::string memory_text(double bytes);

class ExactHeadJob {
 public:
  ExactHeadJob();
  ExactHeadJob(const ExactHeadJob&) = delete;
  ExactHeadJob& operator=(const ExactHeadJob&) = delete;

  // Opens head (layer, head) of `analysis` exactly, unless over `budget_bytes` with `resident` bytes in
  // use now (refused: returns the reason, also kept in the status); "" when started.
  std::string open(std::shared_ptr<const RunAnalysis> analysis, int layer, int head, int64_t budget_bytes, int64_t resident);
  // Stops the running map at its next block of rows; nothing of it is kept.
  void cancel() { jobs_.cancel(); }
  // A new result is on screen: a map (or job) of any other result goes, with the result it held.
  void keep_only(const RunAnalysis* shown);
  ExactHeadStatus status() const;
  bool busy() const { return jobs_.busy(); }
  void wait_idle() { jobs_.wait_idle(); }

 private:
  struct Job {
    std::shared_ptr<const RunAnalysis> analysis;
    int layer = 0, head = 0;
  };
  using Shell = JobShell<Job>;
  void run(Job job, const Shell::Control& control);

  mutable std::mutex mutex_;
  ExactHeadStatus status_;
  std::shared_ptr<const RunAnalysis> held_;  // keeps status_.analysis alive while its map is shown
  Shell jobs_;  // last: its thread stops before the members its job uses
};

}  // namespace hs::gui
