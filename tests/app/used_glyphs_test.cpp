// The font atlas holds the characters the text uses (issue 14, item 4): UsedGlyphs collects the
// ones beyond DejaVu's scripts, and the atlas built for them has real glyphs for Chinese and
// Japanese (from fonts-droid-fallback) and the status line's warning sign.
#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdio>
#include <vector>

#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/used_glyphs.h"
#include "core/text/token_label.h"

namespace {

using namespace hs::gui;

bool fallback_font_installed() {
  if (FILE* f = std::fopen("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "rb")) {
    std::fclose(f);
    return true;
  }
  return false;
}

TEST(UsedGlyphs, CollectsOnlyNewCharactersBeyondTheBaseRanges) {
  UsedGlyphs g;
  EXPECT_FALSE(g.add_text("The cat sat. Καλημέρα, привет \xE2\x9A\xA0"));  // Latin, Greek, Cyrillic, U+26A0
  EXPECT_TRUE(g.extra().empty());
  EXPECT_TRUE(g.add_text("猫が座った"));
  EXPECT_EQ(g.extra(), (std::vector<ImWchar>{0x732B, 0x304C, 0x5EA7, 0x3063, 0x305F}));
  EXPECT_FALSE(g.add_text("猫が座った"));  // nothing new: no rebuild
  EXPECT_TRUE(g.add_text("小猫"));
  EXPECT_EQ(g.extra().size(), 6u);
  EXPECT_FALSE(g.add_text(std::string("\xE7\x8C", 2) + "\xFF\xC0"));  // broken UTF-8 is skipped
  EXPECT_FALSE(g.add_text("\xF0\x9F\x98\x80"));                        // beyond U+FFFF: ImWchar cannot hold it
}

// Issue 49: the first keystroke after opening typed a space, whose token label is the open box
// U+2423; the atlas lacked it and was rebuilt on the UI thread in that keystroke (~80-170 ms on
// llvmpipe). The marks the labels draw for spaces, continued bytes and empty tokens are in the base.
TEST(UsedGlyphs, TokenLabelMarksNeedNoRebuild) {
  const std::vector<std::vector<std::string>> texts = {
      {" "}, {"  "}, {"\xE2\x96\x81"}, {"\xE2\x96\x81the"}, {" cat"}, {"<0xC3>", "<0xA9>"}, {""}, {"a\n"}, {"\t"}};
  for (const hs::SpaceMark mark : {hs::SpaceMark::dot, hs::SpaceMark::none}) {
    UsedGlyphs g;
    hs::TokenLabelOptions options;
    options.space = mark;
    for (const std::vector<std::string>& tokens : texts)
      for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string label = hs::token_label(tokens, i, options);
        EXPECT_FALSE(g.add_text(label)) << "label \"" << label << "\" of token \"" << tokens[i] << "\" needs U+" << std::hex
                                        << (g.extra().empty() ? 0 : unsigned(g.extra().back()));
      }
  }
}

TEST(UsedGlyphs, TheAtlasIsBoundedWhateverTheText) {
  UsedGlyphs g;
  std::string text;
  for (unsigned c = 0x4E00; c < 0x4E00 + 2 * UsedGlyphs::kMaxExtra; ++c) {
    text += char(0xE0 | (c >> 12));
    text += char(0x80 | ((c >> 6) & 0x3F));
    text += char(0x80 | (c & 0x3F));
  }
  g.add_text(text);
  EXPECT_EQ(g.extra().size(), UsedGlyphs::kMaxExtra);
}

TEST(Fonts, AtlasHasChineseJapaneseAndTheWarningSign) {
  if (!fallback_font_installed()) GTEST_SKIP() << "fonts-droid-fallback is not installed (tests/setup_debian.sh)";
  ImGui::CreateContext();
  UsedGlyphs g;
  g.add_text("猫が座った 小猫坐在垫子上");
  const FontRanges ranges = font_ranges(g.extra());
  const Fonts f = load_fonts(1.0f, ranges);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  for (ImFont* font : {f.body, f.heading, f.title}) {
    for (const ImWchar c : g.extra()) EXPECT_NE(font->FindGlyphNoFallback(c), nullptr) << "U+" << std::hex << c;
    EXPECT_NE(font->FindGlyphNoFallback(0x26A0), nullptr) << "the status line's warning sign";
    EXPECT_NE(font->FindGlyphNoFallback('A'), nullptr);
  }
  EXPECT_EQ(f.body->FindGlyphNoFallback(0x4E01), nullptr) << "only the characters in use are in the atlas";
  EXPECT_LE(h, 2048) << "atlas " << w << " x " << h;
  ImGui::DestroyContext();
}

}  // namespace
