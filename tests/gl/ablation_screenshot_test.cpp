// The Ablation view of stories260K in a real window (xvfb-run, Mesa llvmpipe) at 1280x720:
// `headscope --view ablation --ablate zero` runs head ablation off the UI thread and the
// screenshot waits for it; every cell of the layers x heads map has the diverging colour of the
// loss change core's ablate_heads computes (0 white in the middle, range +-max |change|).
// Skips when ${HEADSCOPE_MODELS_DIR}/stories260K is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"
#include "core/render/colormap.h"
#include "core/render/colour_scale.h"
#include "screenshot_util.h"

namespace {

namespace fs = std::filesystem;

const fs::path kStories = fs::path(HEADSCOPE_MODELS_DIR) / "stories260K";

TEST(AblationScreenshot, Stories260KLossChangesInDivergingColours) {
  const fs::path bin = kStories / "stories260K.bin", tok = kStories / "tok512.bin";
  if (!fs::exists(bin) || !fs::exists(tok)) GTEST_SKIP() << "stories260K not found in " << kStories << " (set -DHEADSCOPE_MODELS_DIR)";
  hs::ModelRequest r;
  r.model_path = bin.string();
  r.tokenizer = tok.string();
  r.sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside.";
  r.fit_context = true;
  const hs::HeadAblation a = hs::ablate_heads(r);
  const float m = a.delta_loss.cwiseAbs().maxCoeff();
  ASSERT_GT(m, 0.0f);
  const hs::gltest::Shot shot = hs::gltest::take_screenshot(
      "stories260K_ablation", {"--model", r.model_path, "--tokenizer", r.tokenizer, "--sentence", r.sentence, "--view",
                               "ablation", "--ablation", "zero", "--layer", "1", "--head", "3", "--width", "1280", "--height", "720"});
  ASSERT_EQ(shot.exit_code, 0) << shot.stderr_text;
  const nlohmann::json* map = nullptr;
  bool head_map = false;
  for (const auto& h : shot.layout["heatmaps"]) {
    if (h["key"] == "ablation") map = &h;
    if (h["key"] == "ablation map L1 h3") head_map = true;
  }
  ASSERT_NE(map, nullptr) << "the layers x heads map is on screen";
  EXPECT_TRUE(head_map) << "the selected head's map beside its tokens";
  const auto& h = *map;
  ASSERT_EQ(int(h["rows"]), 5);
  ASSERT_EQ(int(h["cols"]), 8);
  ASSERT_EQ(std::string(h["colormap"]), "rdbu");
  EXPECT_NEAR(float(h["hi"]), m, 1e-5f);
  EXPECT_NEAR(float(h["lo"]), -m, 1e-5f);
  const auto& table = hs::colormap_table(hs::Colormap::rdbu);
  const float x0 = h["x0"], y0 = h["y0"], x1 = h["x1"], y1 = h["y1"];
  int bad = 0;
  for (int l = 0; l < 5; ++l)
    for (int hd = 0; hd < 8; ++hd) {
      const int px = int(x0 + (hd + 0.5f) * (x1 - x0) / 8), py = int(y0 + (l + 0.5f) * (y1 - y0) / 5);
      ASSERT_TRUE(px >= 0 && px < shot.width && py >= 0 && py < shot.height) << "cell outside the window";
      const unsigned char* p = shot.at(px, py);
      // The app's ablation runs the heads in parallel: the same numbers up to float rounding.
      const float t = hs::colour_t(hs::Colormap::rdbu, a.delta_loss(l, hd), m);
      const int index = int(std::floor(t * 255.0f + 0.5f));
      bool ok = false;
      for (int k = std::max(index - 2, 0); k <= std::min(index + 2, 255); ++k)
        ok = ok || (p[0] == table[size_t(k)].r && p[1] == table[size_t(k)].g && p[2] == table[size_t(k)].b);
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << "L" << l << " h" << hd << ": loss change " << a.delta_loss(l, hd) << " -> entry " << index
                      << ", screen (" << int(p[0]) << ", " << int(p[1]) << ", " << int(p[2]) << ")";
    }
  EXPECT_EQ(bad, 0);
}

}  // namespace
