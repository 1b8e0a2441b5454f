#pragma once
// The desktop app: a Window, the GL heatmap textures, the worker and the frame loop, and the
// loop that draws every panel until the user quits; or, with --screenshot, N frames and a PNG;
// or, with --bench-frames, the benchmark (bench_mode.h).
#include "app/gui/platform/options.h"
#include "app/gui/state/app_state.h"

namespace hs::gui {

class App {
 public:
  App(Options options, AppState state);
  // Runs until the window closes (or the screenshot / benchmark is done). Returns the exit code;
  // prints what went wrong on stderr.
  int run();

 private:
  Options options_;
  AppState state_;
};

}  // namespace hs::gui
