#pragma once
// Colours for categories (one line per head), on screen and in figures: Okabe & Ito's eight
// colour-blind-safe colours ("Color Universal Design", 2008), ordered for lines on white (the
// yellow last). Head k takes colour k % 8; heads 8-15 repeat the colours dashed, 16-23 dotted
// with markers, and so on round the three line styles. A sequential colormap sampled for
// categories gives neighbours that look alike; these stay apart, also to deuteranopes
// (tests/core/render/figure_parts_test.cpp checks the distance, plain and simulated).
#include "core/render/colormap.h"

namespace hs {

constexpr int kCategoryColours = 8;

enum class CategoryLine { solid, dashed, dotted };

// Category k's colour (k >= 0).
Rgb8 category_colour(int k);
// Category k's line style: solid for the first eight, then dashed, then dotted, in turn.
CategoryLine category_line(int k);

}  // namespace hs
