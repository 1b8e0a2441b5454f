#pragma once
// The main loop's bookkeeping around each ImGui frame, without a window, so that main.cpp and
// the headless tests run the same path: before the frame take the worker's newest result (an
// error keeps the last good one and, after a failed open, the model on screen); after the
// frame carry out export, session and guarded requests (session_bridge.h) and resubmit when
// the request or the lesson's compare entries changed.
#include <memory>
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/ui_context.h"
#include "app/gui/work/worker.h"

namespace hs::gui {

class FrameLoop {
 public:
  // Submits the state's request; the state as it is now counts as saved (nothing to lose yet).
  FrameLoop(AppState& state, UiContext& ui, DerivedWorker& worker);
  FrameLoop(const FrameLoop&) = delete;
  FrameLoop& operator=(const FrameLoop&) = delete;

  // Before ImGui::NewFrame: takes a finished result if there is one; sets ui.derived,
  // ui.status.error and ui.status.computing. Returns true when a result came.
  bool before_frame();
  // After ImGui::Render: exports, sessions, guarded actions; resubmits a changed request.
  // Returns true when it submitted.
  bool after_frame();

  // The worker's time for the result on screen (ms; a large number before the first one): what
  // the next recompute of the same model will likely take.
  double last_worker_ms() const { return shown_ ? shown_->worker_ms : 1e9; }

  // The result on screen (null until the first good one).
  const std::shared_ptr<const Derived>& shown() const { return shown_; }

 private:
  AppState& state_;
  UiContext& ui_;
  DerivedWorker& worker_;
  std::shared_ptr<const Derived> shown_;
  ModelRequest submitted_;
  std::vector<CompareRequest> submitted_compare_;
  bool submitted_spectrum_ = false;  // the last submission asked for singular values
  std::string submitted_contrast_;   // ... and this minimal pair's sentence B
};

}  // namespace hs::gui
