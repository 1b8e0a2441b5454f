// Issue 14: no peak vanishes on screen. An nn.MultiheadAttention layer built so that each of its
// 4 heads has exactly 8 isolated weight-1.0 cells (every other row is uniform, ~1/T): the app
// draws its maps on fewer pixels than cells (T = 1500; T = 3000 in long-input mode, whose block
// maxima are shrunk again), and every drawn pixel must show the largest cell it covers. Read the
// pixels: around each peak's position the colormap's top colour must be on screen, in the grid,
// the single-head view and the layers x heads overview, at 1280x720 and 1920x1080.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/analysis/long_input.h"
#include "core/formats/npy.h"
#include "core/formats/safetensors.h"
#include "core/model/attention_file.h"
#include "core/model/compact_maps.h"
#include "core/render/colormap.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;
constexpr int kD = 64, kHeads = 4, kWidth = 16, kPeaks = 8;

struct Peaks {
  std::vector<std::pair<int, int>> cells;  // (query, key)
  std::string weights, input;
};

// Query token i carries feature i, its key token feature 8 + i; Wq copies features 0..15 into
// every head, Wk moves feature 8 + i to slot i, so q . k = c^2 only for the 8 (query, key) pairs.
Peaks make_peaks(int T) {
  Peaks p;
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  std::vector<float> x(size_t(T) * kD, 0.0f);  // [T, d]
  const float c = 12.0f;                         // score c^2 / sqrt(16) = 36: weight 1 - T e^-36
  for (int i = 0; i < kPeaks; ++i) {
    const int q = (T / kPeaks) * i + T / 23, k = (q + T / 3 + 11 * i) % T;
    p.cells.push_back({q, k});
    x[size_t(q) * kD + size_t(i)] = c;
    x[size_t(k) * kD + size_t(8 + i)] = c;
  }
  std::vector<float> in_w(size_t(3 * kD) * kD, 0.0f), zeros3(3 * kD, 0.0f), out_w(size_t(kD) * kD, 0.0f), zeros(kD, 0.0f);
  for (int h = 0; h < kHeads; ++h)
    for (int i = 0; i < kWidth; ++i) {
      in_w[size_t(h * kWidth + i) * kD + size_t(i)] = 1.0f;                             // Wq: feature i -> slot i
      if (i < 8) in_w[size_t(kD + h * kWidth + i) * kD + size_t(8 + i)] = 1.0f;         // Wk: feature 8+i -> slot i
    }
  p.weights = (dir / ("peaks_" + std::to_string(T) + ".safetensors")).string();
  p.input = (dir / ("peaks_" + std::to_string(T) + ".npy")).string();
  hs::write_safetensors(p.weights, {{"in_proj_weight", {{3 * kD, kD}, in_w}},
                                    {"in_proj_bias", {{3 * kD}, zeros3}},
                                    {"out_proj.weight", {{kD, kD}, out_w}},
                                    {"out_proj.bias", {{kD}, zeros}}});
  hs::write_npy(p.input, x.data(), {T, kD});
  return p;
}

// The layers x heads overview needs more than one layer: the same 8 peaks in every map of a
// 2-layer x 2-head attention file (--attention), every other row uniform.
std::string make_peak_maps(const Peaks& peaks, int T) {
  constexpr int kLayers = 2, kFileHeads = 2;
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  std::vector<float> maps(size_t(kLayers * kFileHeads) * size_t(T) * size_t(T), 1.0f / float(T));  // [L, H, T, T]
  for (int m = 0; m < kLayers * kFileHeads; ++m)
    for (const auto& [q, k] : peaks.cells) {
      float* row = &maps[(size_t(m) * size_t(T) + size_t(q)) * size_t(T)];
      std::fill(row, row + T, 0.0f);
      row[k] = 1.0f;
    }
  const std::string path = (dir / ("peak_maps_" + std::to_string(T) + ".safetensors")).string();
  hs::write_safetensors(path, {{"attention", {{kLayers, kFileHeads, T, T}, maps}}});
  return path;
}

// How many of the peaks show the colormap's top colour within 2 pixels of where they are drawn.
int visible_peaks(const hs::gltest::Shot& shot, const nlohmann::json& h, const Peaks& peaks, int T) {
  const int rows = h["rows"], cols = h["cols"];
  // Long-input mode: the map holds block maxima of f x f tokens.
  const int f = rows == T ? 1 : hs::compact_factor(T, hs::display_size_for(T, kHeads));
  const float x0 = h["x0"], y0 = h["y0"], x1 = h["x1"], y1 = h["y1"];
  const auto& top = hs::colormap_table(hs::parse_colormap(h["colormap"]))[255];
  int seen = 0;
  for (const auto& [q, k] : peaks.cells) {
    const int x = int(x0 + (k / f + 0.5f) * (x1 - x0) / cols), y = int(y0 + (q / f + 0.5f) * (y1 - y0) / rows);
    bool found = false;
    for (int dy = -2; dy <= 2 && !found; ++dy)
      for (int dx = -2; dx <= 2 && !found; ++dx) {
        const int px = x + dx, py = y + dy;
        if (px < 0 || py < 0 || px >= shot.width || py >= shot.height) continue;
        const unsigned char* c = shot.at(px, py);
        found = c[0] == top.r && c[1] == top.g && c[2] == top.b;
      }
    seen += found;
  }
  return seen;
}

TEST(PeaksScreenshot, EveryPeakIsDrawnInTheGridTheSingleHeadAndTheOverview) {
  // Under a sanitizer (HEADSCOPE_SANITIZER, tests/sanitize.sh) the lighter half: T = 300 and 1500 at
  // 1280x720 (the Release suite runs every length and size).
  const bool sanitized = std::getenv("HEADSCOPE_SANITIZER") != nullptr;
  if (sanitized) std::printf("sanitizer: T = 300 and 1500 at 1280x720 only\n");
  const std::vector<int> lengths = sanitized ? std::vector<int>{300, 1500} : std::vector<int>{300, 1500, 3000};
  std::vector<std::pair<int, int>> sizes = {{1280, 720}, {1920, 1080}};
  if (sanitized) sizes.pop_back();
  for (int T : lengths) {
    const Peaks peaks = make_peaks(T);
    for (const auto& [w, hgt] : sizes) {
      for (const std::string view : {"heads", "head", "overview"}) {  // overview: the layers x heads grid
        const std::string name = "peaks_" + std::to_string(T) + "_" + view + "_" + std::to_string(w);
        SCOPED_TRACE(name);
        std::vector<std::string> args = {"--weights", peaks.weights, "--input", peaks.input, "--heads", "4",
                                         "--view", view, "--head", "1"};
        if (view == "overview") args = {"--attention", make_peak_maps(peaks, T), "--view", "heads", "--all-layers"};
        for (const std::string& a : {std::string("--width"), std::to_string(w), std::string("--height"), std::to_string(hgt)})
          args.push_back(a);
        const hs::gltest::Shot shot = hs::gltest::take_screenshot(name, args);
        ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
        int maps = 0;
        for (const auto& h : shot.layout["heatmaps"]) {
          const std::string key = h["key"];
          const char* prefix = view == "heads" ? "grid" : view == "head" ? "head view" : "overview";
          if (key.rfind(prefix, 0) != 0) continue;
          ++maps;
          EXPECT_EQ(visible_peaks(shot, h, peaks, T), kPeaks)
              << key << ": " << int(h["rows"]) << " cells drawn on " << float(h["x1"]) - float(h["x0"]) << " pixels";
        }
        EXPECT_EQ(maps, view == "head" ? 1 : kHeads);
      }
    }
  }
}

// The 12 x 12 overview (issue 21): 144 maps come from one texture atlas, so ImGui draws them in a
// few draw calls (one per row of maps between the row labels, not one per map), every cell still
// has its colour, and a frame that changes nothing colours (uploads) no map again.
TEST(OverviewScreenshot, ManyMapsDrawFromOneAtlasAndAStillFrameUploadsNothing) {
  constexpr int kL = 12, kH = 12, T = 16;
  // [L, H, T, T]: row 0 of every map attends to key 0 only (so every map's largest weight is 1,
  // the overview's shared scale), the other rows a different spread per map.
  std::vector<float> maps(size_t(kL * kH * T * T), 0.0f);
  for (int m = 0; m < kL * kH; ++m) {
    float* a = &maps[size_t(m) * T * T];
    a[0] = 1.0f;
    for (int i = 1; i < T; ++i) {
      float sum = 0;
      for (int j = 0; j < T; ++j) sum += a[i * T + j] = 1.0f + float((i * 7 + j * 3 + m * 5) % 11);
      for (int j = 0; j < T; ++j) a[i * T + j] /= sum;
    }
  }
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  const std::string path = (dir / "overview_144.safetensors").string();
  hs::write_safetensors(path, {{"attention", {{kL, kH, T, T}, maps}}});
  const hs::gltest::Shot shot = hs::gltest::take_screenshot(
      "overview_144", {"--attention", path, "--view", "heads", "--all-layers", "--width", "1600", "--height", "1000"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  hs::gltest::expect_cells_match(shot, hs::read_attention_file(path), "overview", kL * kH);
  const auto& frame = shot.layout["frame"];
  // Without the atlas each map would be a draw call of its own (> 144).
  EXPECT_LT(int(frame["draw_calls"]), 40) << "the 144 maps are not drawn from one texture";
  EXPECT_EQ(int(frame["heatmap_renders"]), 0) << "the last of 4 still frames coloured maps again";
}

}  // namespace
