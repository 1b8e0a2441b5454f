#pragma once
// The app's hidden benchmark mode (tests/bench/run.sh runs it under xvfb-run):
//   headscope --bench-frames OUT.json [model flags, --view, --all-layers, ...]
// drives the real window, panels, worker and GL renderer and writes OUT.json:
//   frames      the time between consecutive frames (vsync off, glFinish after every swap, so
//               the GPU work is counted): mean, median, p95, max, frames per second, how many
//               heatmaps each frame drew (FrameReport) and how many of them overlap another or run
//               past the window, maps coloured during them (0: nothing re-uploaded) and the most
//               draw calls in one frame;
//   keystrokes  time from a character typed into the sentence box (through GLFW's key and char
//               callbacks of ImGui's backend: Ctrl+L, End, then one character per keystroke) to
//               the end of the first frame in which every map on screen shows the new sentence
//               (the app colours a keystroke's maps over a few frames), the first frame with the
//               new result, the frames the window kept drawing meanwhile (their longest one), the
//               frame that swapped the result in (its panels, map uploads, GL drawing) and the
//               worker's time part by part (AnalysisTimes: engine, head pairs, rollout, roles, ...).
// It measures; it asserts no time. It exits 1 if the typed text never reaches the sentence or
// no result comes back.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/run_analysis.h"

struct GLFWwindow;
namespace CLI {
class App;
}

namespace hs::gui {

struct AppState;
struct UiContext;
struct FrameReport;

struct BenchOptions {
  std::string out;       // --bench-frames OUT.json; empty: the benchmark is off
  int frames = 300;      // --bench-frame-count: frames timed with the result on screen
  int keystrokes = 20;   // --bench-keystrokes: characters typed, each waited for
  std::string typed = " and then the small cat sat down";  // --bench-typed: cycled through
};

// Adds the hidden --bench-* options (not in --help).
void add_bench_flags(CLI::App& app, BenchOptions& options);

class BenchMode {
 public:
  explicit BenchMode(BenchOptions options);
  bool active() const { return !options_.out.empty(); }

  // Before ImGui's new frame: may press keys or type a character into the window.
  void begin_frame(GLFWwindow* window, AppState& state);
  // After the frame is swapped: waits for the GPU (glFinish) and records the frame. Returns
  // false when the benchmark is over (OUT.json written, or the error printed).
  bool end_frame(const AppState& state, const UiContext& ui, const FrameReport& report, bool busy);
  // 0 when OUT.json was written.
  int exit_code() const { return code_; }

 private:
  using Clock = std::chrono::steady_clock;
  enum class Phase { warmup, frames, focus, type, wait_result, wait_maps, settle, done };
  struct Keystroke {
    double latency_ms = 0;         // character typed -> frame with every new map on screen finished
    double first_maps_ms = 0;      // character typed -> the first frame with the new result (some maps may wait)
    double compute_ms = 0;         // the worker's compute_derived time for it
    AnalysisTimes parts;           // ... part by part (core/analysis/run_analysis.h)
    int reused_tokens = -1;        // prefix tokens the worker took from the previous run (-1: a whole run)
    double longest_frame_ms = 0;   // longest frame from the keystroke until every new map is on screen
    double swap_in_frame_ms = 0;   // the frame that showed the new result (texture uploads)
    double swap_ui_ms = 0, swap_upload_ms = 0, swap_render_ms = 0;  // ... its panels, uploads (part of ui), GL drawing
    int swap_renders = 0;          // maps coloured in that frame
    double fonts_ms = 0;           // font atlas rebuilds from the keystroke until every new map is on screen
    int frames = 0;                // frames from the keystroke until every new map is on screen
    int skipped = 0;               // ... of which not drawn (the keystroke's own, when its result came in it)
    int map_frames = 0;            // ... of which from the first with the new result (1: all maps in one frame)
    int tokens = 0;                // T after the keystroke
  };

  void check_layout(const FrameReport& report);
  bool end_frame_maps(const FrameReport& report, Clock::time_point now, double dt, bool first);
  bool fail(const std::string& message);
  bool finish(const UiContext& ui);

  BenchOptions options_;
  Phase phase_ = Phase::warmup;
  int step_ = 0;  // frames into the current phase
  Clock::time_point start_, last_frame_, typed_at_;
  std::vector<double> frame_ms_;
  int heatmaps_min_ = -1, heatmaps_max_ = 0;
  int overlapping_ = 0, outside_ = 0;  // of the last timed frame's heatmaps (check_layout)
  int64_t renders_ = 0;    // maps coloured during the timed frames (the screen is still: 0)
  int draw_calls_max_ = 0; // ImGui draw commands, the most in one timed frame
  std::string expected_;  // the sentence after the current keystroke
  Keystroke current_;
  std::vector<Keystroke> keys_;
  int tokens_ = 0, layers_ = 0, heads_ = 0;
  int code_ = 0;
};

}  // namespace hs::gui
