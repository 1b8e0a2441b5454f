// Every view shows masked cells (keys a causal or windowed query cannot see) in the colormap's
// masked colour, never as weight 0, and explains every map's colours with a colour bar on screen.
// Read from the screenshot map (the PNG's .json sidecar): each heatmap's mask, cells and range,
// and every colour bar drawn; then the pixels at each cell's centre.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/render/colormap.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;
using hs::gltest::Shot;

std::string stories_dir() { return std::string(HEADSCOPE_SOURCE_DIR) + "/assets/models/stories260K"; }

std::vector<std::string> stories_args() {
  return {"--model", stories_dir() + "/stories260K.bin", "--tokenizer", stories_dir() + "/tok512.bin"};
}

// Whether the full map's cell (i, j) is hidden by the sidecar's mask (the rule written out here,
// independently of core/render/map_mask.h).
bool hidden(const nlohmann::json& mask, long i, long j) {
  const bool causal = mask["causal"];
  const long window = mask["window"];
  return (causal && j > i) || (window >= 0 && std::labs(i - j) > window);
}

bool same_colour(const unsigned char* c, hs::Rgb8 want) {
  return std::abs(int(c[0]) - want.r) <= 2 && std::abs(int(c[1]) - want.g) <= 2 && std::abs(int(c[2]) - want.b) <= 2;
}

struct MaskCount {
  int maps = 0;         // masked maps whose cells were checked one by one
  int masked = 0;       // their hidden cells (all the masked colour)
  int visible = 0;      // their visible cells (none the masked colour)
};

// Every heatmap with a mask, drawn with at least one pixel per cell: each hidden cell's centre is
// the masked colour and no visible cell's is. `prefix` limits it to keys starting so ("" every map).
MaskCount expect_masked_cells(const Shot& shot, const std::string& prefix = "") {
  MaskCount n;
  for (const auto& h : shot.layout["heatmaps"]) {
    const std::string key = h["key"];
    if (key.rfind(prefix, 0) != 0 || h["hidden"].get<bool>()) continue;
    const nlohmann::json& mask = h["mask"];
    if (!mask["causal"].get<bool>() && mask["window"].get<long>() < 0) continue;
    const int rows = h["rows"], cols = h["cols"], factor = mask["factor"];
    if (factor != 1 || int(h["texels_x"]) < cols || int(h["texels_y"]) < rows) continue;
    const float x0 = h["x0"], y0 = h["y0"], x1 = h["x1"], y1 = h["y1"];
    const float cw = (x1 - x0) / float(cols), ch = (y1 - y0) / float(rows);
    if (cw < 3 || ch < 3) continue;
    const hs::Rgb8 grey = hs::masked_colour(hs::parse_colormap(h["colormap"]));
    const long row0 = mask["row0"], col0 = mask["col0"];
    ++n.maps;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        const unsigned char* px = shot.at(int(x0 + (float(c) + 0.5f) * cw), int(y0 + (float(r) + 0.5f) * ch));
        if (hidden(mask, row0 + r, col0 + c)) {
          ++n.masked;
          EXPECT_TRUE(same_colour(px, grey)) << key << ": cell (" << r << ", " << c << ") is hidden by the mask but drawn "
                                             << int(px[0]) << "," << int(px[1]) << "," << int(px[2]) << ", not the masked colour";
        } else {
          ++n.visible;
          EXPECT_FALSE(same_colour(px, grey)) << key << ": visible cell (" << r << ", " << c << ") drawn in the masked colour";
        }
      }
  }
  return n;
}

// Every heatmap's colours are explained by a colour bar on screen: one of its colormap on its
// range (or, for maps on their own ranges, a bar of the share 0..1 of each one's largest value).
void expect_bars(const Shot& shot) {
  ASSERT_TRUE(shot.layout.contains("bars"));
  for (const auto& h : shot.layout["heatmaps"]) {
    if (h["hidden"].get<bool>()) continue;
    bool found = false;
    for (const auto& b : shot.layout["bars"]) {
      if (b["colormap"] != h["colormap"]) continue;
      const bool same = b["scale"] == h["scale"] && std::fabs(float(b["lo"]) - float(h["lo"])) < 1e-6f &&
                        std::fabs(float(b["hi"]) - float(h["hi"])) < 1e-6f;
      const bool share = h["relative_bar"].get<bool>() && float(b["lo"]) == 0.0f && float(b["hi"]) == 1.0f;
      found = found || same || share;
    }
    EXPECT_TRUE(found) << h["key"] << " (" << h["colormap"] << ", " << h["scale"] << " " << h["lo"] << ".." << h["hi"]
                       << ") has no colour bar on screen";
  }
}

Shot shoot(const std::string& name, std::vector<std::string> args, int width = 1600, int height = 1000) {
  args.insert(args.end(), {"--width", std::to_string(width), "--height", std::to_string(height)});
  Shot shot = hs::gltest::take_screenshot(name, args, 6);
  EXPECT_EQ(shot.exit_code, 0) << shot.stderr_text;
  return shot;
}

struct Case {
  const char* name;
  std::vector<std::string> args;
  bool stories;        // on stories260K (causal)
  int masked_maps;     // at least this many masked maps checked cell by cell
};

class MaskedViews : public testing::TestWithParam<Case> {};

TEST_P(MaskedViews, MaskedCellsAreGreyAndEveryMapHasABar) {
  const Case& c = GetParam();
  std::vector<std::string> args = c.stories ? stories_args() : std::vector<std::string>{};
  args.insert(args.end(), c.args.begin(), c.args.end());
  const Shot shot = shoot(std::string("masks_") + c.name, args);
  if (shot.exit_code != 0) return;
  const MaskCount n = expect_masked_cells(shot);
  EXPECT_GE(n.maps, c.masked_maps) << "masked maps checked cell by cell";
  EXPECT_GT(n.masked, 0);
  EXPECT_GT(n.visible, 0);
  expect_bars(shot);
}

INSTANTIATE_TEST_SUITE_P(
    Views, MaskedViews,
    testing::Values(Case{"heads", {"--view", "heads"}, true, 8},
                    Case{"average", {"--view", "average"}, true, 9},          // the layer's average and its 8 heads
                    Case{"rollout", {"--view", "average", "--rollout"}, true, 9},
                    Case{"head_zoom", {"--view", "head", "--zoom", "0.2,0.2,0.3"}, true, 1},
                    Case{"difference", {"--view", "difference"}, true, 3},   // the pair and |A - B|
                    Case{"difference_zoom", {"--view", "difference", "--zoom", "0.3,0.3,0.5"}, true, 3},
                    Case{"ablation", {"--view", "ablation", "--ablation", "zero"}, true, 1},
                    Case{"lesson1_step9", {"--lesson", "multi_head_attention", "--step", "9"}, false, 2},  // both blocks: the teaching model's 4 heads each
                    Case{"lesson1_step9_present", {"--lesson", "multi_head_attention", "--step", "9", "--present"}, false, 2},
                    Case{"lesson2_step6", {"--lesson", "what_heads_do", "--step", "6"}, false, 2}),
    [](const testing::TestParamInfo<Case>& p) { return std::string(p.param.name); });

// The zoomed head's minimap is beside the map, never over its cells.
TEST(MaskedViewsZoom, MinimapLeavesTheCellsFree) {
  std::vector<std::string> args = stories_args();
  args.insert(args.end(), {"--view", "head", "--zoom", "0.5,0.5,0.5"});
  const Shot shot = shoot("masks_minimap", args, 1280, 720);
  const nlohmann::json* head = nullptr;
  for (const auto& h : shot.layout["heatmaps"])
    if (h["key"] == "head view") head = &h;
  ASSERT_NE(head, nullptr);
  const nlohmann::json* minimap = nullptr;
  for (const auto& p : shot.layout["panels"])
    if (p["name"] == "minimap") minimap = &p;
  ASSERT_NE(minimap, nullptr) << "no minimap drawn";
  const bool apart = float((*minimap)["x0"]) >= float((*head)["x1"]) || float((*minimap)["x1"]) <= float((*head)["x0"]) ||
                     float((*minimap)["y0"]) >= float((*head)["y1"]) || float((*minimap)["y1"]) <= float((*head)["y0"]);
  EXPECT_TRUE(apart) << "the minimap overlaps the zoomed map's cells";
  EXPECT_LE(float((*minimap)["y1"]), float(shot.height)) << "the minimap runs off the window";
}

}  // namespace
