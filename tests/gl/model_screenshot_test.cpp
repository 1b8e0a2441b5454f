// stories260K in a real window (xvfb-run, Mesa llvmpipe) with 12 generated tokens: every cell of
// the single-head view and of the selected layer's grid has the colour of the engine's own value
// (FILE.png.json says where each map was drawn), and the maps cover prompt + generated tokens.
// Skips when ${HEADSCOPE_MODELS_DIR}/stories260K is absent.
#include <gtest/gtest.h>
#include <stb_image.h>

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

namespace {

namespace fs = std::filesystem;

struct Shot {
  int exit_code = -1;
  int width = 0, height = 0;
  std::vector<unsigned char> rgb;  // [height, width, 3]
  nlohmann::json layout;
  std::string stderr_text;
};

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Shot take_screenshot(const std::string& name, const std::vector<std::string>& args) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  const std::string png = (dir / (name + ".png")).string(), err = (dir / (name + ".stderr")).string();
  fs::remove(png);
  std::string cmd = std::string(HEADSCOPE_XVFB_RUN) + " -a -s '-screen 0 1920x1080x24' " + HEADSCOPE_APP;
  for (const std::string& a : args) cmd += " " + quote(a);
  cmd += " --screenshot " + quote(png) + " --frames 4 2>" + quote(err);
  // No user config is read or written: imgui.ini lives under XDG_CONFIG_HOME and --screenshot skips it.
  const std::string env = "XDG_CONFIG_HOME=" + quote((dir / "config").string()) + " ";
  Shot s;
  // xvfb-run -a can lose a race for a display number when tests run in parallel: retry then.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int status = std::system((env + cmd).c_str());
    s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream e(err);
    s.stderr_text.assign(std::istreambuf_iterator<char>(e), {});
    if (fs::exists(png) || s.stderr_text.find("Xvfb failed") == std::string::npos) break;
  }
  int channels = 0;
  unsigned char* data = stbi_load(png.c_str(), &s.width, &s.height, &channels, 3);
  if (data) {
    s.rgb.assign(data, data + size_t(s.width) * size_t(s.height) * 3);
    stbi_image_free(data);
    std::ifstream j(png + ".json");
    s.layout = nlohmann::json::parse(j);
  }
  return s;
}

// Checks every cell of every heatmap with `key_prefix` against the engine's values.
void expect_cells_match(const Shot& shot, const hs::AttentionRun& run, const std::string& key_prefix, int expected_maps) {
  int maps = 0;
  for (const auto& h : shot.layout["heatmaps"]) {
    const std::string key = h["key"];
    if (key.rfind(key_prefix, 0) != 0) continue;
    ++maps;
    const int layer = h["layer"], head = h["head"], rows = h["rows"], cols = h["cols"];
    const hs::Map& a = run.attention.at(size_t(layer)).at(size_t(head));  // [T, T]
    ASSERT_EQ(rows, a.rows());
    ASSERT_EQ(cols, a.cols());
    ASSERT_EQ(std::string(h["scale"]), "linear");
    const float lo = h["lo"], hi = h["hi"];
    // The exporter's rule: the grid shares one scale, 0 to the layer's largest weight; one
    // head on its own runs from 0 to its own largest weight.
    EXPECT_EQ(lo, 0.0f);
    float expected_max = a.maxCoeff();
    if (key.rfind("grid", 0) == 0)
      for (const hs::Map& m : run.attention[size_t(layer)]) expected_max = std::max(expected_max, m.maxCoeff());
    EXPECT_NEAR(hi, expected_max, 1e-6f) << key;
    const hs::Colormap cmap = hs::parse_colormap(h["colormap"]);
    const auto& table = hs::colormap_table(cmap);
    const float x0 = h["x0"], y0 = h["y0"], x1 = h["x1"], y1 = h["y1"];
    int bad = 0;
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) {
        const int px = int(x0 + (j + 0.5f) * (x1 - x0) / cols), py = int(y0 + (i + 0.5f) * (y1 - y0) / rows);
        ASSERT_TRUE(px >= 0 && px < shot.width && py >= 0 && py < shot.height) << key << " cell outside the window";
        const unsigned char* p = &shot.rgb[(size_t(py) * size_t(shot.width) + size_t(px)) * 3];
        const float t = (a(i, j) - lo) / (hi - lo);
        const int index = int(std::floor(std::clamp(t, 0.0f, 1.0f) * 255.0f + 0.5f));
        // GPU and CPU may round t*255+0.5 differently right at a .5 boundary: allow the neighbour.
        bool ok = false;
        for (int k = std::max(index - 1, 0); k <= std::min(index + 1, 255); ++k)
          ok = ok || (p[0] == table[size_t(k)].r && p[1] == table[size_t(k)].g && p[2] == table[size_t(k)].b);
        if (!ok && ++bad <= 5) {
          ADD_FAILURE() << key << " cell [" << i << ", " << j << "] at pixel (" << px << ", " << py << "): weight "
                        << a(i, j) << " -> table entry " << index << " (" << int(table[size_t(index)].r) << ", "
                        << int(table[size_t(index)].g) << ", " << int(table[size_t(index)].b) << "), screen has ("
                        << int(p[0]) << ", " << int(p[1]) << ", " << int(p[2]) << ")";
        }
      }
    EXPECT_EQ(bad, 0) << key << ": " << bad << " of " << rows * cols << " cells have the wrong colour";
  }
  EXPECT_EQ(maps, expected_maps) << "heatmaps named '" << key_prefix << "...' on screen";
}

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
