// Issue 22: a 3000-token input (long-input mode: 1000 x 1000 block maxima) zoomed in the real
// window down to exact cells. An nn.MultiheadAttention layer whose heads put weight ~1 on one
// (query, key) cell per peak and ~1/T elsewhere; zoomed to 30 x 30 tokens around a peak, the
// single-head view draws one cell per token (the layout sidecar says 30 x 30), the peak's cell is
// the colormap's top colour and its neighbours in the row are not, and the minimap is drawn beside
// the map, not over its cells.
// The difference view zooms its pair together.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "core/formats/npy.h"
#include "core/formats/safetensors.h"
#include "core/render/colormap.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;
constexpr int kD = 16, kT = 3000;
constexpr int kQuery = 1717, kKey = 905;  // the peak

// Query token kQuery carries feature 0, key token kKey feature 8; Wq copies feature 0 into slot 0
// of both heads, Wk feature 8 into slot 0, so q . k = c^2 only for (kQuery, kKey).
void make_peak(std::string& weights, std::string& input) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  std::vector<float> x(size_t(kT) * kD, 0.0f);  // [T, d]
  x[size_t(kQuery) * kD + 0] = 12.0f;
  x[size_t(kKey) * kD + 8] = 12.0f;
  std::vector<float> in_w(size_t(3 * kD) * kD, 0.0f), zeros3(3 * kD, 0.0f), out_w(size_t(kD) * kD, 0.0f), zeros(kD, 0.0f);
  for (int h = 0; h < 2; ++h) {
    in_w[size_t(h * 8) * kD + 0] = 1.0f;             // Wq: feature 0 -> slot 0 of head h
    in_w[size_t(kD + h * 8) * kD + 8] = 1.0f;        // Wk: feature 8 -> slot 0 of head h
  }
  weights = (dir / "zoom_peak.safetensors").string();
  input = (dir / "zoom_peak.npy").string();
  hs::write_safetensors(weights, {{"in_proj_weight", {{3 * kD, kD}, in_w}},
                                  {"in_proj_bias", {{3 * kD}, zeros3}},
                                  {"out_proj.weight", {{kD, kD}, out_w}},
                                  {"out_proj.bias", {{kD}, zeros}}});
  hs::write_npy(input, x.data(), {kT, kD});
}

bool is_top(const hs::gltest::Shot& shot, int x, int y) {
  const auto& top = hs::colormap_table(hs::Colormap::viridis)[255];
  const unsigned char* c = shot.at(x, y);
  return c[0] == top.r && c[1] == top.g && c[2] == top.b;
}

TEST(ZoomScreenshot, LongInputZoomsToExactCells) {
  std::string weights, input;
  make_peak(weights, input);
  const int row0 = kQuery - 15, col0 = kKey - 15;
  char zoom[64];
  std::snprintf(zoom, sizeof zoom, "%.6f,%.6f,%.6f", (col0 + 0.25) / kT, (row0 + 0.25) / kT, 29.5 / kT);
  const hs::gltest::Shot shot = hs::gltest::take_screenshot(
      "zoom_3000_head", {"--weights", weights, "--input", input, "--heads", "2", "--view", "head", "--head", "1", "--zoom", zoom});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  const nlohmann::json* head = nullptr;
  bool minimap = false;
  for (const auto& h : shot.layout["heatmaps"]) {
    if (h["key"] == "head view") head = &h;
  }
  ASSERT_NE(head, nullptr);
  ASSERT_EQ(int((*head)["rows"]), 30) << "one cell per token";
  ASSERT_EQ(int((*head)["cols"]), 30);
  const float x0 = (*head)["x0"], y0 = (*head)["y0"], x1 = (*head)["x1"], y1 = (*head)["y1"];
  const float cw = (x1 - x0) / 30, ch = (y1 - y0) / 30;
  const auto centre = [&](int r, int c) { return std::make_pair(int(x0 + (c + 0.5f) * cw), int(y0 + (r + 0.5f) * ch)); };
  const auto [px, py] = centre(kQuery - row0, kKey - col0);
  EXPECT_TRUE(is_top(shot, px, py)) << "the peak's cell at (" << px << ", " << py << ")";
  const auto [nx, ny] = centre(kQuery - row0, kKey - col0 - 3);
  EXPECT_FALSE(is_top(shot, nx, ny)) << "a cell of the peak's row three keys before it";
  const auto [mx, my] = centre(kQuery - row0 - 2, kKey - col0);
  EXPECT_FALSE(is_top(shot, mx, my)) << "the cell two queries above the peak";
  // The minimap beside the map (the screenshot map lists it), never over the zoomed cells.
  for (const auto& p : shot.layout["panels"])
    if (p["name"] == "minimap") {
      minimap = true;
      const bool apart = float(p["x0"]) >= x1 || float(p["x1"]) <= x0 || float(p["y0"]) >= y1 || float(p["y1"]) <= y0;
      EXPECT_TRUE(apart) << "the minimap covers the zoomed map's cells";
    }
  EXPECT_TRUE(minimap);
}

TEST(ZoomScreenshot, DifferenceViewZoomsThePair) {
  std::string weights, input;
  make_peak(weights, input);
  char zoom[64];
  std::snprintf(zoom, sizeof zoom, "%.6f,%.6f,%.6f", (kKey - 10.0) / kT, (kQuery - 10.0) / kT, 20.0 / kT);
  const hs::gltest::Shot shot = hs::gltest::take_screenshot(
      "zoom_3000_difference", {"--weights", weights, "--input", input, "--heads", "2", "--view", "difference", "--zoom", zoom});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  int pair_maps = 0;
  for (const auto& h : shot.layout["heatmaps"]) {
    const std::string key = h["key"];
    if (key.rfind("pair ", 0) != 0) continue;
    ++pair_maps;
    EXPECT_LE(int(h["rows"]), 21) << key;
    EXPECT_GE(int(h["rows"]), 20) << key;
  }
  EXPECT_EQ(pair_maps, 3);
}

}  // namespace
