#pragma once
// Activation patching off the UI thread, in a job shell (job_shell.h): one job at a time, with
// progress and cancel, on the two runs of the Contrast view the screen shows (immutable, shared).
// A new start cancels the running job first. The frame loop owns the job and starts it on a
// RunPatching command.
#include <memory>
#include <mutex>
#include <string>

#include "app/gui/state/derived.h"
#include "app/gui/state/patching_status.h"
#include "app/gui/work/job_shell.h"
#include "core/model/checkpoint_cache.h"

namespace hs::gui {

class PatchingJob {
 public:
  // threads: for the patched heads (<= 0: all cores).
  explicit PatchingJob(CheckpointCache* checkpoints = nullptr, int threads = 0);
  PatchingJob(const PatchingJob&) = delete;
  PatchingJob& operator=(const PatchingJob&) = delete;

  // On the shown result's sentence A and its contrast run (which must hold an analysis).
  void start(std::shared_ptr<const RunAnalysis> a, std::shared_ptr<const ContrastRun> b, const PairQuestion& question);
  void cancel() { jobs_.cancel(); }
  PatchingStatus status() const;
  bool busy() const { return jobs_.busy(); }
  void wait_idle() { jobs_.wait_idle(); }

 private:
  struct Job {
    std::shared_ptr<const RunAnalysis> a;
    std::shared_ptr<const ContrastRun> b;
    PairQuestion question;
  };
  using Shell = JobShell<Job>;
  void run(Job job, const Shell::Control& control);

  CheckpointCache* checkpoints_;
  int threads_;
  mutable std::mutex mutex_;
  PatchingStatus status_;  // as of the newest start; done and total come from the shell
  Shell jobs_;             // last: its thread stops before the members its job uses
};

// Whether patching can run on the shown result (A) and its contrast, and if not why ("" when it can).
std::string patching_unavailable(const RunAnalysis& a, const ContrastRun* contrast, const PairQuestion& question);

// Whether the status's job was made for this screen (request, sentence B, continuations).
bool patching_matches(const PatchingStatus& status, const ModelRequest& request, const std::string& contrast,
                      const PairQuestion& question);

}  // namespace hs::gui
