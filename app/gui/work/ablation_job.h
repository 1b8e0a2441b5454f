#pragma once
// Head ablation off the UI thread, in a job shell (job_shell.h): one job at a time, with progress
// and cancel (core/analysis/head_ablation.h). A new start cancels the running job first (its
// numbers are not kept). The checkpoint comes from the worker's cache, so an open model is not
// read again. The frame loop owns the job and starts it on a RunAblation command.
#include <memory>
#include <mutex>
#include <string>

#include "app/gui/state/ablation_status.h"
#include "app/gui/state/app_state.h"
#include "app/gui/work/job_shell.h"
#include "core/model/checkpoint_cache.h"

namespace hs::gui {

class AblationJob {
 public:
  // threads: for the ablation's heads (<= 0: all cores).
  explicit AblationJob(CheckpointCache* checkpoints = nullptr, int threads = 0);
  AblationJob(const AblationJob&) = delete;
  AblationJob& operator=(const AblationJob&) = delete;

  void start(const ModelRequest& request, AblationMode mode);
  // Stops the running job after the head it is on (its heads so far stay as a partial result).
  void cancel() { jobs_.cancel(); }
  AblationStatus status() const;
  bool busy() const { return jobs_.busy(); }
  void wait_idle() { jobs_.wait_idle(); }

 private:
  struct Job {
    ModelRequest request;
    AblationMode mode = AblationMode::zero;
  };
  using Shell = JobShell<Job>;
  void run(Job job, const Shell::Control& control);

  CheckpointCache* checkpoints_;
  int threads_;
  mutable std::mutex mutex_;
  AblationStatus status_;  // as of the newest start; done and total come from the shell
  Shell jobs_;             // last: its thread stops before the members its job uses
};

// Whether the Ablation view can run on `a`, and if not why ("" when it can).
std::string ablation_unavailable(const RunAnalysis& a);

}  // namespace hs::gui
