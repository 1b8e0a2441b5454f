#include "app/gui/platform/run_mode.h"

#include <imgui.h>

#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "app/gui/platform/screenshot.h"

namespace hs::gui {
namespace {

// A keystroke's new maps are coloured over as many frames as it takes at ~24 ms a frame (the 144
// of GPT-2-small-shaped's overview take ~20 ms on llvmpipe: one frame, and a frame stays well
// under 50 ms).
constexpr double kUploadBudgetMs = 24;
// A recompute is waited for when it took at most this last time. On llvmpipe a 1600 x 1000 frame
// takes ~10 ms, so without the wait the synthetic default's 25 ms per keystroke are two frames.
constexpr double kQuickResultMs = 5;
// While the worker computes, a frame at most every ~33 ms unless input or its result comes: on
// llvmpipe every frame is drawn by the CPU, and frames as fast as they come took a third of the
// worker's time on 2 cores (a keystroke on the Qwen2.5-0.5B-shaped file).
constexpr double kBusyFrameMs = 33;

// HEADSCOPE_UPLOAD_BUDGET, HEADSCOPE_QUICK_RESULT: unset or unreadable ->
// `fallback`; "off" -> 0 (no limit; never waits); a positive number of ms.
double ms_setting(const char* env, double fallback) {
  if (!env) return fallback;
  const std::string s(env);
  if (s == "off") return 0;
  char* end = nullptr;
  const double ms = std::strtod(s.c_str(), &end);
  return end && *end == '\0' && ms > 0 && std::isfinite(ms) ? ms : fallback;
}

}  // namespace

RunMode::RunMode(const Options& options)
    : screenshot_(options.screenshot),
      frames_(options.frames),
      bench_(options.bench),
      upload_budget_ms_(ms_setting(std::getenv("HEADSCOPE_UPLOAD_BUDGET"), kUploadBudgetMs)),
      quick_ms_(ms_setting(std::getenv("HEADSCOPE_QUICK_RESULT"), kQuickResultMs)) {}

double RunMode::event_wait(bool computing, bool moving) const {
  if (moving || screenshot()) return 0;
  if (computing) return kBusyFrameMs / 1000;
  return interactive() ? 0.1 : 0;
}

void RunMode::start(GlHeatmapImages& images, DerivedWorker& worker) const {
  if (!screenshot()) images.set_upload_budget_ms(upload_budget_ms_);  // a screenshot colours every map at once
  if (screenshot()) worker.wait_idle();
}

void RunMode::begin_frame(GLFWwindow* window, AppState& state) {
  if (!interactive()) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  bench_.begin_frame(window, state);
}

bool RunMode::wait_after_panels(bool submitted, double last_worker_ms, DerivedWorker& worker, RegionMaps& regions) const {
  if (submitted && screenshot()) worker.wait_idle();
  const bool quick = submitted && !screenshot() && quick_ms_ > 0 && last_worker_ms <= quick_ms_ &&
                     worker.wait_result(2 * quick_ms_);
  if (screenshot() && regions.busy()) regions.wait_idle();  // a zoomed region: its exact cells in the picture
  return quick;
}

void RunMode::wait_for(AblationJob& ablation, PatchingJob& patching, FitJob& fit, ExactHeadJob& exact_head) const {
  if (!screenshot()) return;
  ablation.wait_idle();
  patching.wait_idle();
  fit.wait_idle();
  exact_head.wait_idle();
}

bool RunMode::last_frame(int frame) const {
  if (screenshot()) return frame >= (frames_ > 0 ? frames_ : 3);
  return frames_ > 0 && frame >= frames_;
}

int RunMode::finish(int width, int height, const FrameReport& report, bool have_result, const std::string& error) const {
  if (!screenshot()) return 0;
  std::string why;
  if (!write_screenshot(screenshot_, width, height, report, why)) {
    std::cerr << "error: " << why << "\n";
    return 1;
  }
  if (!have_result) {
    std::cerr << "error: " << error << "\n";
    return 1;
  }
  return 0;
}

bool RunMode::after_swap(const AppState& state, const UiContext& ui, const FrameReport& report, bool busy) {
  return !bench_.active() || bench_.end_frame(state, ui, report, busy);
}

}  // namespace hs::gui
