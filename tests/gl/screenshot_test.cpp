// headscope in a real window (xvfb-run, Mesa llvmpipe): `--screenshot FILE.png --frames N`
// writes the window's pixels and FILE.png.json (where each heatmap's cells were drawn). Every
// cell's centre pixel must be the shared colormap's colour for the engine's own value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/model_request.h"
#include "core/render/colormap.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;

using hs::gltest::expect_cells_match;
using hs::gltest::quote;
using hs::gltest::Shot;
using hs::gltest::take_screenshot;

hs::AttentionRun engine(const std::string& sentence, int d_model, int heads, int kv_heads, bool causal) {
  hs::ModelRequest r;
  r.sentence = sentence;
  r.attention.d_model = d_model;
  r.attention.n_heads = heads;
  r.attention.n_kv_heads = kv_heads;
  r.attention.causal = causal;
  return hs::run_request(r);
}

TEST(Screenshot, HeadGridCellsHaveTheEnginesColours) {
  const std::string sentence = "the keys that Priya left on the table were not hers";
  const Shot shot = take_screenshot("grid", {"--sentence", sentence, "--d-model", "8", "--heads", "4"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  ASSERT_EQ(shot.width, 1600);
  ASSERT_EQ(shot.height, 1000);
  expect_cells_match(shot, engine(sentence, 8, 4, 0, false), "grid L0 h", 4);
}

TEST(Screenshot, GroupedCausalHeadsWithMagma) {
  const std::string sentence = "Zoë's café — Москва, the table";
  const Shot shot = take_screenshot("gqa", {"--sentence", sentence, "--d-model", "16", "--heads", "8", "--kv-heads",
                                            "2", "--causal", "--colormap", "magma"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  const hs::AttentionRun run = engine(sentence, 16, 8, 2, true);
  expect_cells_match(shot, run, "grid L0 h", 8);
  // Masked cells (key after query) are exactly 0: the colormap's first entry.
  for (const auto& h : shot.layout["heatmaps"]) EXPECT_EQ(std::string(h["colormap"]), "magma");
}

TEST(Screenshot, SingleHeadViewIsTheSelectedHead) {
  const std::string sentence = "one two three four five six";
  const Shot shot = take_screenshot("head", {"--sentence", sentence, "--heads", "2", "--view", "head", "--head", "1"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  expect_cells_match(shot, engine(sentence, 8, 2, 0, false), "head view", 1);
  for (const auto& h : shot.layout["heatmaps"]) {
    if (h["key"] == "head view") {
      EXPECT_EQ(int(h["head"]), 1);
    }
  }
}

TEST(Screenshot, BadSettingsStillOpenAndNameTheProblem) {
  const Shot shot = take_screenshot("bad", {"--sentence", "a b c", "--d-model", "8", "--heads", "3"});
  EXPECT_EQ(shot.exit_code, 1);
  EXPECT_NE(shot.stderr_text.find("heads (3) must divide d_model (8)"), std::string::npos) << shot.stderr_text;
  EXPECT_EQ(shot.width, 1600) << "the window should still be drawn";
}

}  // namespace

namespace {

TEST(Window, LayoutPersistsUnderXdgConfigHomeNotTheWorkingFolder) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out" / "persist";
  fs::remove_all(dir);
  fs::create_directories(dir / "cwd");
  const std::string cmd = "cd " + quote((dir / "cwd").string()) + " && XDG_CONFIG_HOME=" + quote((dir / "config").string()) +
                          " " + HEADSCOPE_XVFB_RUN + " -a -s '-screen 0 1920x1080x24' " + HEADSCOPE_APP +
                          " --frames 3 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const fs::path ini = dir / "config" / "headscope" / "imgui.ini";
  ASSERT_TRUE(fs::exists(ini));
  std::ifstream in(ini);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("[headscope][prefs]"), std::string::npos) << text;
  EXPECT_NE(text.find("colormap=viridis"), std::string::npos) << text;
  EXPECT_TRUE(fs::is_empty(dir / "cwd")) << "nothing may be written to the working folder";
}

}  // namespace
