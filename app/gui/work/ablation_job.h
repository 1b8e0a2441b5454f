#pragma once
// Head ablation off the UI thread: one job at a time on its own thread, with progress and cancel
// (core/analysis/head_ablation.h). A new start cancels the running job first. The checkpoint comes
// from the worker's cache, so an open model is not read again.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "app/gui/state/ablation_status.h"
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "core/model/checkpoint_cache.h"

namespace hs::gui {

class AblationJob {
 public:
  // threads: for the ablation's heads (<= 0: all cores).
  explicit AblationJob(CheckpointCache* checkpoints = nullptr, int threads = 0);
  ~AblationJob();
  AblationJob(const AblationJob&) = delete;
  AblationJob& operator=(const AblationJob&) = delete;

  void start(const ModelRequest& request, AblationMode mode);
  // Stops the running job after the head it is on (its heads so far stay as a partial result).
  void cancel();
  AblationStatus status() const;
  bool busy() const;
  void wait_idle();

 private:
  void run(ModelRequest request, AblationMode mode);
  void join();

  CheckpointCache* checkpoints_;
  int threads_;
  mutable std::mutex mutex_;
  std::condition_variable idle_;
  AblationStatus status_;
  std::atomic<bool> cancel_{false};
  std::thread thread_;
};

// After each frame: starts the ablation the view asked for on the result on screen, cancels a
// job the view asked to stop or whose sentence or model is no longer the one being edited.
void handle_ablation_requests(AppState& state, const Derived* shown, AblationJob& job);

// Whether the Ablation view can run on `a`, and if not why ("" when it can).
std::string ablation_unavailable(const RunAnalysis& a);

}  // namespace hs::gui
