// The colour rule shared with the GPU shader: value / max over the shown maps, clamped.
#include "core/render/colour_scale.h"

#include <gtest/gtest.h>

#include <cmath>

namespace hs {
namespace {

TEST(ColourScale, MaxIsOverEveryShownMap) {
  Map a(2, 2), b(2, 2);
  a << 0.1f, 0.2f, 0.3f, 0.4f;
  b << 0.0f, 0.9f, 0.05f, 0.05f;
  EXPECT_FLOAT_EQ(colour_scale_max({&a}), 0.4f);
  EXPECT_FLOAT_EQ(colour_scale_max({&a, &b}), 0.9f);
}

TEST(ColourScale, AllZeroOrEmptyScalesToOne) {
  Map z = Map::Zero(3, 3);
  EXPECT_FLOAT_EQ(colour_scale_max({&z}), 1.0f);
  EXPECT_FLOAT_EQ(colour_scale_max({}), 1.0f);
}

TEST(ColourScale, NegativeValuesCountByMagnitude) {
  Map a(1, 2);
  a << -0.8f, 0.2f;
  EXPECT_FLOAT_EQ(colour_scale_max({&a}), 0.8f);
}

TEST(ColourScale, SequentialMapsDivideByMaxAndClamp) {
  EXPECT_FLOAT_EQ(colour_t(Colormap::viridis, 0.2f, 0.4f), 0.5f);
  EXPECT_FLOAT_EQ(colour_t(Colormap::viridis, 0.8f, 0.4f), 1.0f);
  EXPECT_FLOAT_EQ(colour_t(Colormap::magma, -0.1f, 0.4f), 0.0f);
  EXPECT_FLOAT_EQ(colour_t(Colormap::gray, std::nanf(""), 0.4f), 0.0f);
}

TEST(ColourScale, DivergingMapsCentreOnZero) {
  EXPECT_FLOAT_EQ(colour_t(Colormap::rdbu, 0.0f, 2.0f), 0.5f);
  EXPECT_FLOAT_EQ(colour_t(Colormap::rdbu, 2.0f, 2.0f), 1.0f);
  EXPECT_FLOAT_EQ(colour_t(Colormap::rdbu, -2.0f, 2.0f), 0.0f);
}

TEST(ColourScale, CellColourIsTheTableEntry) {
  const auto& table = colormap_table(Colormap::viridis);
  const Rgb8 top = cell_colour(Colormap::viridis, 0.4f, 0.4f);
  EXPECT_EQ(top.r, table[255].r);
  EXPECT_EQ(top.g, table[255].g);
  EXPECT_EQ(top.b, table[255].b);
  const Rgb8 mid = cell_colour(Colormap::viridis, 0.2f, 0.4f);  // t = 0.5 -> entry floor(128.0) = 128
  EXPECT_EQ(mid.g, table[128].g);
}

}  // namespace
}  // namespace hs
