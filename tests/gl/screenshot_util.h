#pragma once
// Shared by the real-window tests: run `headscope ... --screenshot FILE.png` under xvfb-run,
// decode the PNG and its FILE.png.json layout sidecar, and check heatmap cells against the
// engine's values and the shared colormap tables.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/model_run.h"

namespace hs::gltest {

struct Shot {
  int exit_code = -1;
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // [height, width, 3]
  nlohmann::json layout;
  std::string stderr_text;

  const unsigned char* at(int x, int y) const { return &rgb[(size_t(y) * size_t(width) + size_t(x)) * 3]; }
};

// A shell-quoted argument.
std::string quote(const std::string& s);

// Runs the app with `args` plus --screenshot tests/gl/out/NAME.png --frames N in a 1920x1080 Xvfb
// screen (retrying when xvfb-run loses a display race) and loads what it wrote. With `xft_dpi`
// (e.g. 192, a HiDPI desktop) the X server's resources say Xft.dpi first (xprop, x11-utils),
// which GLFW reads as the monitor's content scale.
Shot take_screenshot(const std::string& name, const std::vector<std::string>& args, int frames = 4, int xft_dpi = 0);

// Every cell of every heatmap whose key starts with `key_prefix` has the colormap colour of the
// engine's value (within one table entry), on a 0..max scale (the grid: the layer's max);
// `expected_maps` heatmaps with that prefix are on screen.
void expect_cells_match(const Shot& shot, const AttentionRun& run, const std::string& key_prefix, int expected_maps);

}  // namespace hs::gltest
