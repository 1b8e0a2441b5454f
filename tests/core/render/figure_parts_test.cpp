// Axis labels, ticks and CSV fields: the small rules every figure and data file relies on.
#include "core/render/figure_parts.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/formats/csv.h"
#include "core/render/category_palette.h"
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

// Issue 35: labels asked for (every one) that would overprint at the 6 pt floor are thinned, and
// the labels say so (the CLI prints it).
TEST(AxisLabels, AskedForLabelsShrinkToTheFloorThenThinWithANote) {
  MeasureCanvas m;
  const std::vector<std::string> names(25, "tok");
  const AxisLabels roomy = layout_axis_labels(m, names, 10, false, 8, 6, 1);
  EXPECT_TRUE(roomy.note.empty());
  EXPECT_EQ(roomy.text[1], "tok");
  const AxisLabels crowded = layout_axis_labels(m, names, 5, false, 8, 6, 1);
  EXPECT_EQ(crowded.style.size, 6);  // smaller down to the floor first
  EXPECT_EQ(crowded.text[0], "tok");
  EXPECT_EQ(crowded.text[1], "");    // then every 2nd: 6 pt labels need 7.2 pt, a cell is 5
  EXPECT_EQ(crowded.text[2], "tok");
  EXPECT_NE(crowded.note.find("every 2-th shown"), std::string::npos) << crowded.note;
}

// Issue 35: a title fitted to a page's width keeps its size when it fits, wraps, gets smaller down
// to 6 pt, and is shortened with "…" at the floor: never wider than the room.
TEST(FitText, WrapsThenShrinksThenShortensNeverWiderThanTheRoom) {
  MeasureCanvas m;
  const TextStyle style{9.2, true, {0, 0, 0}};
  const std::string title = "stories260K \u00b7 layer 0 \u00b7 singular values of each head's scores";
  const FittedText wide = fit_text(m, title, style, 1000);
  ASSERT_EQ(wide.lines.size(), 1u);
  EXPECT_EQ(wide.style.size, 9.2);
  const FittedText column = fit_text(m, title, style, 220);
  EXPECT_EQ(column.lines.size(), 2u);
  EXPECT_EQ(column.style.size, 9.2);
  for (double room : {220.0, 120.0, 60.0, 20.0}) {
    const FittedText t = fit_text(m, title, style, room);
    EXPECT_LE(t.width, room + 1e-9) << room;
    EXPECT_GE(t.style.size, 6.0) << room;
    EXPECT_LE(t.lines.size(), 2u) << room;
  }
  const FittedText cut = fit_text(m, title, style, 20);
  EXPECT_NE(cut.lines.back().find("\u2026"), std::string::npos);
}

// Per-head lines (screen and figures) take Okabe-Ito's categorical colours: every pair apart by
// at least 15 (CIE76 delta E in L*a*b*), also as a deuteranope sees them (Machado et al. 2009,
// severity 1). The sequential colormap the lines used before fails it for deuteranopes.
namespace colour_distance {

double linear(uint8_t c) {
  const double v = c / 255.0;
  return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
}

std::array<double, 3> lab(const std::array<double, 3>& rgb_linear) {
  const double x = (0.4124 * rgb_linear[0] + 0.3576 * rgb_linear[1] + 0.1805 * rgb_linear[2]) / 0.95047;
  const double y = 0.2126 * rgb_linear[0] + 0.7152 * rgb_linear[1] + 0.0722 * rgb_linear[2];
  const double z = (0.0193 * rgb_linear[0] + 0.1192 * rgb_linear[1] + 0.9505 * rgb_linear[2]) / 1.08883;
  const auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : t * 24389 / 27 / 116 + 16.0 / 116; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

std::array<double, 3> seen(Rgb8 c, bool deuteranope) {
  std::array<double, 3> l = {linear(c.r), linear(c.g), linear(c.b)};
  if (deuteranope) {
    const double m[3][3] = {{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}};
    std::array<double, 3> d{};
    for (int i = 0; i < 3; ++i) d[size_t(i)] = std::clamp(m[i][0] * l[0] + m[i][1] * l[1] + m[i][2] * l[2], 0.0, 1.0);
    l = d;
  }
  return lab(l);
}

double closest_pair(const std::vector<Rgb8>& colours, bool deuteranope) {
  double closest = 1e9;
  for (size_t a = 0; a < colours.size(); ++a)
    for (size_t b = a + 1; b < colours.size(); ++b) {
      const auto p = seen(colours[a], deuteranope), q = seen(colours[b], deuteranope);
      closest = std::min(closest, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
    }
  return closest;
}

}  // namespace colour_distance

TEST(CategoryPalette, EightColoursPairwiseDistinctAlsoToDeuteranopes) {
  std::vector<Rgb8> palette, sampled;
  for (int k = 0; k < kCategoryColours; ++k) {
    palette.push_back(category_colour(k));
    sampled.push_back(colormap_lookup(Colormap::viridis, 0.15f + 0.8f * float(k) / 7));  // the old per-head lines
  }
  EXPECT_GE(colour_distance::closest_pair(palette, false), 15);
  EXPECT_GE(colour_distance::closest_pair(palette, true), 15);
  EXPECT_LT(colour_distance::closest_pair(sampled, true), 15) << colour_distance::closest_pair(sampled, false);
  // Past eight heads the colours repeat with another line style: no two heads look the same.
  for (int a = 0; a < 24; ++a)
    for (int b = a + 1; b < 24; ++b) {
      const Rgb8 p = category_colour(a), q = category_colour(b);
      const bool same_colour = p.r == q.r && p.g == q.g && p.b == q.b;
      EXPECT_FALSE(same_colour && category_line(a) == category_line(b)) << a << " " << b;
    }
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
