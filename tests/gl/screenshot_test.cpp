// headscope in a real window (xvfb-run, Mesa llvmpipe): `--screenshot FILE.png --frames N`
// writes the window's pixels and FILE.png.json (where each heatmap's cells were drawn). Every
// cell's centre pixel must be the shared colormap's colour for the engine's own value.
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
