#pragma once
// The Head width view's pattern fit off the UI thread, in a job shell (job_shell.h): the closest
// map a head of each width makes to a target pattern (core/analysis/pattern_fit.h), with progress
// and cancel. A new start cancels the running fit (its widths are not kept). The frame loop owns
// the job and starts it on a FitPattern command.
#include <memory>
#include <mutex>
#include <string>

#include "app/gui/state/fit_status.h"
#include "app/gui/work/job_shell.h"
#include "core/analysis/run_analysis.h"

namespace hs::gui {

class FitJob {
 public:
  FitJob();
  FitJob(const FitJob&) = delete;
  FitJob& operator=(const FitJob&) = delete;

  // Fits `pattern` (target_pattern.h) over the tokens of `analysis` (result `generation`).
  void start(const std::string& pattern, std::shared_ptr<const RunAnalysis> analysis, uint64_t generation);
  // Stops the running fit at its next 50 steps; the widths it finished stay.
  void cancel() { jobs_.cancel(); }
  FitStatus status() const;
  bool busy() const { return jobs_.busy(); }
  void wait_idle() { jobs_.wait_idle(); }

 private:
  struct Job {
    std::string pattern;
    std::shared_ptr<const RunAnalysis> analysis;
  };
  using Shell = JobShell<Job>;
  void run(Job job, const Shell::Control& control);

  mutable std::mutex mutex_;
  FitStatus status_;  // as of the newest start; done and total come from the shell
  Shell jobs_;        // last: its thread stops before the members its job uses
};

}  // namespace hs::gui
