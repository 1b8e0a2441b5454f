// Chinese and Japanese in the app (issue 14, item 4): the sentence box and the token chips draw
// real glyphs from the fallback font (fonts-droid-fallback), not one box per character.
//
// Two sentences with the same shape (same character count per word, so the same layout) but
// different characters: when every character falls back to the same box, the band above the
// heatmaps (menu, tabs, sentence box, token chips) is pixel-identical for both; drawn with real
// glyphs it differs. The app's layout sidecar also lists the characters the body font lacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "screenshot_util.h"

namespace {

using hs::gltest::Shot;

// The top of the first heatmap: the band above it holds the sentence box and the chips.
int heatmaps_top(const Shot& s) {
  float top = float(s.height);
  for (const auto& h : s.layout["heatmaps"]) top = std::min(top, float(h["y0"]));
  return int(top);
}

// Pixels that differ between two screenshots in rows [0, rows).
long differing_pixels(const Shot& a, const Shot& b, int rows) {
  long n = 0;
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < a.width; ++x)
      if (!std::equal(a.at(x, y), a.at(x, y) + 3, b.at(x, y))) ++n;
  return n;
}

TEST(FontsScreenshot, ChineseAndJapaneseAreDrawnWithTheirOwnGlyphs) {
  // 5 + 7 characters each (猫 twice in the first: 11 distinct).
  const Shot a = hs::gltest::take_screenshot("cjk_a", {"--sentence", "猫が座った 小猫坐在垫子上", "--view", "heads"});
  const Shot b = hs::gltest::take_screenshot("cjk_b", {"--sentence", "犬が走った 大狗跑到草地上", "--view", "heads"});
  ASSERT_EQ(a.exit_code, 0) << a.stderr_text;
  ASSERT_EQ(b.exit_code, 0) << b.stderr_text;
  ASSERT_EQ(a.width, b.width);
  ASSERT_EQ(a.height, b.height);
  const int band = std::min(heatmaps_top(a), heatmaps_top(b));
  ASSERT_GT(band, 40) << "no heatmap below the sentence box";
  const long differ = differing_pixels(a, b, band);
  EXPECT_GT(differ, 200) << "the sentence box and chips look the same for different Chinese/Japanese text: "
                            "every character is drawn as the same fallback box (only "
                         << differ << " pixels differ above y = " << band << ")";
  // The atlas has every character the text uses (none left to ImGui's fallback glyph), and stays small.
  ASSERT_TRUE(a.layout.contains("fonts")) << "the screenshot's layout does not report the font atlas";
  EXPECT_EQ(int(a.layout["fonts"]["extra_glyphs"]), 11);  // 猫 twice
  EXPECT_TRUE(a.layout["fonts"]["missing_glyphs"].empty()) << a.layout["fonts"].dump();
  EXPECT_LE(int(a.layout["fonts"]["atlas_height"]), 4096) << a.layout["fonts"].dump();
}

}  // namespace
