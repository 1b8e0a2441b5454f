#pragma once
// The main loop's bookkeeping around each ImGui frame, without a window, so that main.cpp and
// the headless tests run the same path: before the frame take the worker's newest result (an
// error keeps the last good one and, after a failed open, the model on screen) and the
// ablation's status; after the frame carry out the command queue (run_commands.h: export,
// sessions, guarded actions, jobs) and resubmit when the request or the lesson's compare entries
// changed. The frame loop owns the background jobs: the analysis worker it is given, and the
// head ablation, activation patching and zoomed regions it keeps (each in a job shell, job_shell.h).
#include <memory>
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/ui_context.h"
#include "app/gui/work/ablation_job.h"
#include "app/gui/work/exact_head_job.h"
#include "app/gui/work/fit_job.h"
#include "app/gui/work/patching_job.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/work/worker.h"

namespace hs::gui {

class FrameLoop {
 public:
  // Submits the state's request; the state as it is now counts as saved (nothing to lose yet).
  // ablation_threads: for head ablation's heads (<= 0: all cores).
  FrameLoop(AppState& state, UiContext& ui, DerivedWorker& worker, int ablation_threads = 0);
  FrameLoop(const FrameLoop&) = delete;
  FrameLoop& operator=(const FrameLoop&) = delete;

  // Before ImGui::NewFrame: takes a finished result if there is one; sets ui.derived,
  // ui.status.error, ui.status.computing and ui.ablation. Returns true when a result came.
  bool before_frame();
  // After ImGui::Render: the command queue (run_commands.h); resubmits a changed request.
  // Returns true when it submitted.
  bool after_frame();

  // The worker's time for the result on screen (ms; a large number before the first one): what
  // the next recompute of the same model will likely take.
  double last_worker_ms() const { return shown_ ? shown_->worker_ms : 1e9; }

  // The result on screen (null until the first good one).
  const std::shared_ptr<const Derived>& shown() const { return shown_; }

  // The jobs it owns (the window waits for them in screenshots; ui.regions may point here).
  AblationJob& ablation() { return ablation_; }
  PatchingJob& patching() { return patching_; }
  RegionMaps& regions() { return regions_; }
  FitJob& fit() { return fit_; }
  ExactHeadJob& exact_head() { return exact_head_; }

 private:
  AppState& state_;
  UiContext& ui_;
  DerivedWorker& worker_;
  std::shared_ptr<const Derived> shown_;
  ModelRequest submitted_;
  std::vector<CompareRequest> submitted_compare_;
  bool submitted_spectrum_ = false;  // the last submission asked for singular values
  ContrastAsk submitted_contrast_;   // ... and this sentence B or model B
  AblationJob ablation_;
  PatchingJob patching_;
  RegionMaps regions_;
  FitJob fit_;
  ExactHeadJob exact_head_;
};

}  // namespace hs::gui
