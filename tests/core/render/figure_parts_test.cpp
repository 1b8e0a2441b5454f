// Axis labels, ticks and CSV fields: the small rules every figure and data file relies on.
#include "core/render/figure_parts.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/formats/csv.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

TEST(DisplayLabel, KeepsNonAsciiIntact) {
  EXPECT_EQ(display_label("Grüße"), "Grüße");
  EXPECT_EQ(display_label("Москва"), "Москва");
  EXPECT_EQ(display_label("東京"), "東京");
}

// The screen's rule (core/text/token_label.h; issue 36): newline and tab as the app shows them,
// spaces as thin dots.
TEST(DisplayLabel, ShowsControlCharactersAndBlanks) {
  EXPECT_EQ(display_label("\n"), "\u21b5");
  EXPECT_EQ(display_label("a\tb"), "a\u21e5b");
  EXPECT_EQ(display_label("  "), "\u2423\u2423");
  EXPECT_EQ(display_label(""), "\u2205");
  EXPECT_EQ(display_label(" the"), "\u00b7the");  // a leading space is part of the token
}

// Issue 36, finding 7: figures drew SentencePiece's "▁" as a thick bar and byte pieces as
// "<0xE6>"; an emoji as the font's box. Now: the thin dot (or nothing), the character on the token
// that completes it, and a name for what no font draws.
TEST(DisplayLabel, FigureAxesUseTheScreensRule) {
  MeasureCanvas m;
  const std::vector<std::string> tokens = {"<s>", "\u2581Once", "<0xE6>", "<0x88>", "<0x91>", "\U0001F600"};
  const AxisLabels dot = layout_axis_labels(m, tokens, 20, false, 10, 5.5, 1);
  EXPECT_EQ(dot.text, (std::vector<std::string>{"<s>", "\u00b7Once", "\u2026", "\u2026", "\u6211", "U+1F600"}));
  const AxisLabels none = layout_axis_labels(m, tokens, 20, false, 10, 5.5, 1, SpaceMark::none);
  EXPECT_EQ(none.text[1], "Once");
  // A character none of the figure's fonts has (U+0870, Unicode 14 Arabic) is named, not a box.
  ASSERT_FALSE(m.has_glyph(0x0870)) << "some installed font now has U+0870: pick another test character";
  EXPECT_TRUE(m.has_glyph(0x6211)) << "fonts-droid-fallback draws CJK";
  EXPECT_EQ(display_label({"\u0870"}, 0, &m, SpaceMark::dot), "U+0870");
}

TEST(DisplayLabel, AbbreviatesLongTokensByCodePoint) {
  const std::string long_token = "ääääääääääääääääääää";  // 20 code points, 40 bytes
  const std::string shown = display_label(long_token);
  EXPECT_EQ(utf8_length(shown), kMaxLabelCodePoints);
  EXPECT_TRUE(utf8_is_valid(shown));
  EXPECT_EQ(shown.substr(shown.size() - 3), "\u2026");
}

TEST(AxisLabels, RotateWhenCrowdedAndThinWhenTiny) {
  MeasureCanvas m;
  const std::vector<std::string> names = {"the", "keys", "that", "Priya"};
  const AxisLabels wide = layout_axis_labels(m, names, 40, true, 10);
  EXPECT_FALSE(wide.vertical);
  EXPECT_EQ(wide.text[3], "Priya");
  const AxisLabels narrow = layout_axis_labels(m, names, 12, true, 10);
  EXPECT_TRUE(narrow.vertical);
  EXPECT_GT(narrow.extent, 0);
  const AxisLabels tiny = layout_axis_labels(m, names, 2, false, 10);
  EXPECT_EQ(tiny.text[0], "the");
  EXPECT_EQ(tiny.text[1], "");  // thinned: labels would overlap
}

TEST(TextWidth, MixedScriptsMeasureEveryCharacter) {
  MeasureCanvas m;
  const TextStyle style{10, false, {0, 0, 0}};
  const double ab = m.width("ab", style);
  EXPECT_GT(ab, 0);
  // CJK and emoji come from a fallback family when one is installed, else DejaVu's box:
  // either way each character takes room, and invalid bytes do not stop the measurement.
  EXPECT_GT(m.width("a東京b", style), ab + 5);
  EXPECT_GT(m.width("a👋b", style), ab + 2);
  EXPECT_GT(m.width(std::string("a\xff") + "b", style), ab);
  EXPECT_GT(m.width("Grüße", TextStyle{10, true, {0, 0, 0}}), m.width("Gr", style));
}

TEST(NiceTicks, StepsAreOneTwoFiveTimesPowersOfTen) {
  const Ticks t = nice_ticks(0, 0.367, 5);
  ASSERT_EQ(t.values.size(), 4u);
  EXPECT_DOUBLE_EQ(t.values[0], 0);
  EXPECT_NEAR(t.values[3], 0.3, 1e-12);
  EXPECT_EQ(t.decimals, 1);
  EXPECT_EQ(format_number(t.values[1], t.decimals), "0.1");
  const Ticks s = nice_ticks(-1, 1, 4);
  EXPECT_EQ(format_number(s.values.front(), s.decimals), "\u22121.0");
}

TEST(CsvField, QuotesOnlyWhatNeedsIt) {
  EXPECT_EQ(csv_field("keys"), "keys");
  EXPECT_EQ(csv_field(","), "\",\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_field(" the"), "\" the\"");
  EXPECT_EQ(csv_field("Grüße"), "Grüße");
}

}  // namespace
}  // namespace hs
