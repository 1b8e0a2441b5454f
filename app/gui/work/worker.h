#pragma once
// DerivedWorker: recomputes Derived on a background thread (compute.h: core's analyse()), in a job
// shell (job_shell.h). The newest submitted request wins: older pending requests are dropped, and
// a result whose generation is older than the newest submission is discarded. Errors come back as
// text; the caller keeps its last good result.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/state/derived.h"
#include "app/gui/work/compute.h"
#include "app/gui/work/job_shell.h"
#include "core/analysis/induction_probe.h"
#include "core/model/checkpoint_cache.h"

namespace hs::gui {

struct WorkerResult {
  uint64_t generation = 0;
  std::shared_ptr<const Derived> derived;  // null on error
  std::string error;
};

class DerivedWorker {
 public:
  // `threads`: the engine's threads for every job (0: every core; --threads).
  explicit DerivedWorker(int threads = 0);
  DerivedWorker(const DerivedWorker&) = delete;
  DerivedWorker& operator=(const DerivedWorker&) = delete;

  // Queues a recompute; returns its generation. `compare` entries (a lesson step's side-by-side
  // states) are computed with it and published in the same result; `spectrum`: with singular values
  // and then the head-count sweep (the numbers of the views that show them; export computes a
  // missing sweep itself).
  // `contrast`: a minimal pair's sentence B, or model B on the request's input (empty: none), run
  // and compared with the request's. A newer submission stops a comparison of two models between
  // its two runs.
  uint64_t submit(const ModelRequest& request, std::vector<CompareRequest> compare = {}, bool spectrum = true,
                  ContrastAsk contrast = {});
  // The newest finished result not yet taken, if any.
  std::optional<WorkerResult> poll();
  bool busy() const { return jobs_.busy(); }
  // The newest request's progress (zeros while an older one still runs, or when its work reports
  // none): a comparison of two models counts model reads and layers run (ModelPairOptions::progress).
  JobProgress progress() const { return jobs_.newest_progress(); }
  // Called on the worker's thread at each step a comparison of two models reports, before it asks
  // whether to go on (tests: a request submitted from here cancels the comparison mid-run, as the
  // view's Cancel does). Set it before the first submit.
  void on_model_pair_step(std::function<void(int done, int total)> hook) { model_pair_hook_ = std::move(hook); }
  // Blocks until a result is ready for poll() or `ms` have passed; true when one is ready.
  bool wait_result(double ms);
  // Called on the worker's thread after each result is published (the app wakes its event wait).
  void on_result(std::function<void()> wake);
  // Blocks until every submitted request has been computed (screenshots, tests).
  void wait_idle() { jobs_.wait_idle(); }
  // From now on every result carries the roles with induction (Derived::roles): the Head roles
  // view is on screen. The probe is measured once per model and kept while only the sentence changes.
  void want_induction() { want_induction_ = true; }
  // The open checkpoint, shared with head ablation's job (the cache is thread-safe).
  CheckpointCache& checkpoints() { return checkpoints_; }

 private:
  int threads_;
  struct Job {
    ModelRequest request;
    std::vector<CompareRequest> compare;
    bool spectrum = true;
    ContrastAsk contrast;  // sentence B or model B (empty: none)
  };
  using Shell = JobShell<Job>;
  void run(Job job, const Shell::Control& control);
  // Hands a result to poll() unless a newer request came in.
  void publish(WorkerResult r);
  // Phase 2: the head-count sweep for `d`, published as a second result of the same generation.
  void publish_sweep(const Job& job, const std::shared_ptr<Derived>& d, uint64_t generation);
  // Fills d.roles from the kept probe, measuring it first when the model changed (worker thread).
  void add_induction(Derived& d, const ModelRequest& request);

  mutable std::mutex mutex_;
  std::condition_variable ready_;  // a result was published
  uint64_t finished_ = 0;          // generation of the newest published result
  std::optional<WorkerResult> result_;
  std::function<void()> wake_;  // on_result's, under mutex_
  std::function<void(int, int)> model_pair_hook_;  // on_model_pair_step's (set before the first submit)
  std::shared_ptr<const Sweep> sweep_;  // reused while its inputs stay the same
  ModelRequest sweep_request_;
  std::atomic<bool> want_induction_{false};
  InductionScores induction_;       // the last model's probe (worker thread only)
  ModelRequest induction_request_;  // ... its request without the sentence
  bool have_induction_ = false;
  CheckpointCache checkpoints_;  // the open checkpoint, not read again on every edit
  CheckpointCache checkpoints_b_;  // model B's, open beside it while two models are compared
  LiveTypingCaches live_;        // the previous run and its analysis, whose prefix an edit at the end reuses (worker thread only)
  Shell jobs_;                   // last: its thread stops before the members its job uses
};

}  // namespace hs::gui
