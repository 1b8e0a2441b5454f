// stories260K in a real window (xvfb-run, Mesa llvmpipe) with 12 generated tokens: every cell of
// the single-head view and of the selected layer's grid has the colour of the engine's own value
// (FILE.png.json says where each map was drawn), and the maps cover prompt + generated tokens.
// Skips when ${HEADSCOPE_MODELS_DIR}/stories260K is absent.
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
using hs::gltest::Shot;
using hs::gltest::take_screenshot;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

TEST(ModelScreenshot, Stories260KWithGeneratedTokens) {
  const fs::path bin = kStories / "stories260K.bin", tok = kStories / "tok512.bin";
  if (!fs::exists(bin) || !fs::exists(tok)) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  hs::ModelRequest r;
  r.model_path = bin.string();
  r.tokenizer = tok.string();
  r.sentence = "Once upon a time, Lily";
  r.generate = 12;
  const hs::AttentionRun run = hs::run_request(r);
  ASSERT_EQ(run.n_tokens(), run.prompt_tokens + 12);
  const std::vector<std::string> model = {"--model", r.model_path, "--tokenizer", r.tokenizer, "--sentence", r.sentence,
                                          "--generate", "12"};

  std::vector<std::string> head_args = model;
  for (const char* a : {"--view", "head", "--layer", "2", "--head", "5"}) head_args.push_back(a);
  const Shot head = take_screenshot("stories260K_head", head_args);
  ASSERT_EQ(head.exit_code, 0) << head.stderr_text;
  expect_cells_match(head, run, "head view", 1);
  for (const auto& h : head.layout["heatmaps"]) {
    EXPECT_EQ(int(h["layer"]), 2);
    EXPECT_EQ(int(h["head"]), 5);
    EXPECT_EQ(int(h["rows"]), run.n_tokens()) << "the map covers the generated tokens too";
  }

  std::vector<std::string> grid_args = model;
  for (const char* a : {"--layer", "1"}) grid_args.push_back(a);
  const Shot grid = take_screenshot("stories260K_grid", grid_args);
  ASSERT_EQ(grid.exit_code, 0) << grid.stderr_text;
  expect_cells_match(grid, run, "grid L1 h", 8);
}

}  // namespace
