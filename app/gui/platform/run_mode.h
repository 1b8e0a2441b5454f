#pragma once
// How App::run's loop runs: one of three modes, and what each changes in the frame sequence.
//   interactive  a person at the window: vsync and imgui.ini; input is waited for while nothing
//                moves; a keystroke's maps are coloured over a few frames (the upload budget) and
//                a recompute that was quick last time is waited for briefly (the quick result);
//                --frames N ends it after N frames.
//   screenshot   --screenshot FILE.png: each frame waits for everything it started (the result,
//                a zoomed region, an ablation) and colours every map; after --frames frames (3)
//                the window's pixels go to FILE.png and the app exits.
//   benchmark    --bench-frames OUT.json (bench_mode.h): types into the window and times it.
// Screenshots and benchmarks neither read nor change a person's settings, never wait for
// input, keep the mouse pointer off the window and fill a FrameReport.
// Environment (read here, by the program; the benchmark and the screenshot tests set them):
// HEADSCOPE_UPLOAD_BUDGET and HEADSCOPE_QUICK_RESULT, "off" (no budget; never waits) or a number of ms.
#include <string>

#include "app/gui/platform/bench_mode.h"
#include "app/gui/platform/gl_heatmap_images.h"
#include "app/gui/platform/options.h"
#include "app/gui/work/ablation_job.h"
#include "app/gui/work/exact_head_job.h"
#include "app/gui/work/fit_job.h"
#include "app/gui/work/patching_job.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/work/worker.h"

struct GLFWwindow;

namespace hs::gui {

class RunMode {
 public:
  explicit RunMode(const Options& options);

  bool interactive() const { return !screenshot() && !bench_.active(); }
  bool screenshot() const { return !screenshot_.empty(); }

  // Before the first frame: the maps' upload budget; a screenshot waits for the first result.
  void start(GlHeatmapImages& images, DerivedWorker& worker) const;
  // The close button closes at once in a screenshot (nobody is there to answer a question).
  bool closes_at_once() const { return screenshot(); }
  // How long the loop waits for input before its next frame, in seconds: 0 (only polled) while
  // something moves on screen (`moving`: maps being coloured, an ablation running) and in a
  // screenshot; while the worker computes (`computing`) a frame's time (~30 frames a second; its
  // result ends the wait at once, DerivedWorker::on_result), so the window's drawing leaves the
  // worker the cores; when idle, interactive mode waits up to 0.1 s and a benchmark polls.
  double event_wait(bool computing, bool moving) const;
  // Where the frame's panels report what they drew: `report`, or null when nobody reads it.
  FrameReport* report(FrameReport& report) const { return interactive() ? nullptr : &report; }
  // After the window's new frame, before ImGui's: the mouse pointer off the window (screenshots
  // must not depend on where the virtual pointer happens to be); the benchmark's keys.
  void begin_frame(GLFWwindow* window, AppState& state);

  // After the panels and the frame loop (`submitted`: a recompute was submitted): a screenshot
  // waits for the result and the zoomed region. Otherwise a recompute that took at most the
  // quick time last time (`last_worker_ms`) is waited for, up to twice that; true when it came:
  // this frame's picture (the old maps) is not drawn and the next frame follows at once with
  // the new ones (a keystroke on a small model shows its maps a frame sooner).
  bool wait_after_panels(bool submitted, double last_worker_ms, DerivedWorker& worker, RegionMaps& regions) const;
  // A screenshot shows the finished ablation, patching and pattern fit.
  void wait_for(AblationJob& ablation, PatchingJob& patching, FitJob& fit, ExactHeadJob& exact_head) const;

  // The last frame: --frames N, or a screenshot's (3 by default).
  bool last_frame(int frame) const;
  // The exit code after the last frame; a screenshot writes the back buffer (`width` x `height`)
  // and `report` to its PNG, and fails without a result (`error` says why).
  int finish(int width, int height, const FrameReport& report, bool have_result, const std::string& error) const;
  // After the swap: the benchmark records the frame. False when it is over (exit_code()).
  bool after_swap(const AppState& state, const UiContext& ui, const FrameReport& report, bool busy);
  int exit_code() const { return bench_.exit_code(); }

 private:
  std::string screenshot_;
  int frames_ = 0;
  BenchMode bench_;
  double upload_budget_ms_ = 0;
  double quick_ms_ = 0;
};

}  // namespace hs::gui
