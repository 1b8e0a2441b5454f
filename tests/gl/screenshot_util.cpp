#include "screenshot_util.h"

#include "core/model/attention_layer.h"

#include <gtest/gtest.h>
#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/render/colormap.h"

namespace hs::gltest {

namespace fs = std::filesystem;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

Shot take_screenshot(const std::string& name, const std::vector<std::string>& args, int frames, int xft_dpi) {
  const fs::path dir = fs::path(HEADSCOPE_BINARY_DIR) / "tests" / "gl" / "out";
  fs::create_directories(dir);
  const std::string png = (dir / (name + ".png")).string(), err = (dir / (name + ".stderr")).string();
  fs::remove(png);
  // -noreset: the server keeps the resources xprop sets after xprop disconnects.
  std::string cmd = std::string(HEADSCOPE_XVFB_RUN) + " -a -s '-screen 0 1920x1080x24" + (xft_dpi > 0 ? " -noreset" : "") + "' ";
  if (xft_dpi > 0)
    cmd += "sh -c " + quote("xprop -root -format RESOURCE_MANAGER 8s -set RESOURCE_MANAGER 'Xft.dpi: " + std::to_string(xft_dpi) +
                            "' && exec \"$@\"") + " sh ";
  cmd += HEADSCOPE_APP;
  for (const std::string& a : args) cmd += " " + quote(a);
  cmd += " --screenshot " + quote(png) + " --frames " + std::to_string(frames) + " 2>" + quote(err);
  // No user config is read or written: imgui.ini lives under XDG_CONFIG_HOME and --screenshot skips it.
  const std::string env = "XDG_CONFIG_HOME=" + quote((dir / "config").string()) + " ";
  Shot s;
  // xvfb-run itself can fail when tests run in parallel ("xvfb-run: error: Xvfb failed to start"
  // after losing a race for a display number, or exit 5 "problem while cleaning up temporary
  // directory"): that is the harness, not the app, so the run is repeated.
  for (int attempt = 0; attempt < 3; ++attempt) {
    fs::remove(png);
    const int status = std::system((env + cmd).c_str());
    s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream e(err);
    s.stderr_text.assign(std::istreambuf_iterator<char>(e), {});
    if (s.stderr_text.find("xvfb-run: error:") == std::string::npos) break;
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

void expect_cells_match(const Shot& shot, const AttentionRun& run, const std::string& key_prefix, int expected_maps) {
  int maps = 0;
  for (const auto& h : shot.layout["heatmaps"]) {
    const std::string key = h["key"];
    if (key.rfind(key_prefix, 0) != 0) continue;
    ++maps;
    const int layer = h["layer"], head = h["head"], rows = h["rows"], cols = h["cols"];
    const Map& a = run.attention.at(size_t(layer)).at(size_t(head));  // [T, T]
    ASSERT_EQ(rows, a.rows());
    ASSERT_EQ(cols, a.cols());
    ASSERT_EQ(std::string(h["scale"]), "linear");
    const float lo = h["lo"], hi = h["hi"];
    // The exporter's rule: the grid shares one scale, 0 to the layer's largest weight; one
    // head on its own runs from 0 to its own largest weight.
    EXPECT_EQ(lo, 0.0f);
    float expected_max = a.maxCoeff();
    if (key.rfind("grid", 0) == 0)
      for (const Map& m : run.attention[size_t(layer)]) expected_max = std::max(expected_max, m.maxCoeff());
    EXPECT_NEAR(hi, expected_max, 1e-6f) << key;
    const Colormap cmap = parse_colormap(h["colormap"]);
    const auto& table = colormap_table(cmap);
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
        if (!key_visible(layer_attention_config(run.info, layer), i, j)) {  // masked: its own colour
          const Rgb8 m = masked_colour(cmap);
          ok = p[0] == m.r && p[1] == m.g && p[2] == m.b;
          if (!ok && ++bad <= 5) ADD_FAILURE() << key << " cell [" << i << ", " << j << "] is masked; screen has (" << int(p[0]) << ", " << int(p[1]) << ", " << int(p[2]) << ")";
          continue;
        }
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

}  // namespace hs::gltest
