// The colour rule shared with the GPU shader: value / max over the shown maps, clamped.
#include "core/render/colour_scale.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/util/errors.h"

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

// The app's scales (the same functions colour the screen and export).
TEST(ColourScale, LinearLogAndRows) {
  Map m(2, 3);
  m << 0.5f, 0.25f, 0.25f, 0.0f, 0.1f, 0.9f;
  ColourScale s;
  const ScaleRange lin = scale_range(s, 0.9f);
  const Map t = scale_to_unit(m, lin);
  EXPECT_FLOAT_EQ(t(1, 2), 1.0f);
  EXPECT_FLOAT_EQ(t(1, 0), 0.0f);
  EXPECT_NEAR(t(0, 0), 0.5f / 0.9f, 1e-6f);
  s.mode = ScaleMode::row_normalised;
  const Map r = scale_to_unit(m, scale_range(s, 0.9f));
  EXPECT_FLOAT_EQ(r(0, 0), 1.0f);
  EXPECT_FLOAT_EQ(r(0, 1), 0.5f);
  s.ignore_first_key = true;
  const Map r2 = scale_to_unit(m, scale_range(s, 0.9f));
  EXPECT_FLOAT_EQ(r2(0, 1), 1.0f);  // row max without key 0 is 0.25
  s = {};
  s.mode = ScaleMode::log;
  const ScaleRange lg = scale_range(s, 1.0f);
  EXPECT_FLOAT_EQ(scale_unit(lg, 1.0f, 0), 1.0f);
  EXPECT_NEAR(scale_unit(lg, 0.1f, 0), 2.0f / 3.0f, 1e-5f);
  EXPECT_FLOAT_EQ(scale_unit(lg, 0.0f, 0), 0.0f);
  EXPECT_NEAR(scale_value_at(lg, 0.0f), 1e-3f, 1e-9f);
}

// The whole-map loop (vectorised for linear scales) gives, bit for bit, what scale_unit gives each
// cell, clamped: for weights, negatives, values past the maximum, NaN and infinities, with a
// sequential and a diverging colormap and with key 0 left out of the range.
TEST(ColourScale, WholeMapEqualsEveryCellsOwnScale) {
  Map m(7, 9);
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = std::sin(float(i * 9 + j) * 1.7f) * 1.3f;
  m(0, 0) = NAN, m(1, 1) = INFINITY, m(2, 2) = -INFINITY, m(3, 3) = 0.0f, m(4, 4) = -0.0f;
  for (Colormap cm : {Colormap::viridis, Colormap::rdbu})
    for (ScaleMode mode : {ScaleMode::linear, ScaleMode::log, ScaleMode::row_normalised})
      for (bool skip : {false, true}) {
        ColourScale s;
        s.colormap = cm, s.mode = mode, s.ignore_first_key = skip;
        const ScaleRange r = scale_range(s, 0.77f);
        const Map t = scale_to_unit(m, r);
        for (Eigen::Index i = 0; i < m.rows(); ++i) {
          const Eigen::Index first = skip ? 1 : 0;
          const float row_max = mode == ScaleMode::row_normalised ? m.row(i).tail(m.cols() - first).maxCoeff() : 0.0f;
          for (Eigen::Index j = 0; j < m.cols(); ++j) {
            const float u = scale_unit(r, m(i, j), row_max);
            const float want = u > 0.0f ? std::min(u, 1.0f) : 0.0f;
            ASSERT_EQ(std::memcmp(&want, &t(i, j), sizeof(float)), 0)
                << "cell (" << i << ", " << j << ") of " << m(i, j) << ", mode " << scale_mode_name(mode) << ", colormap "
                << int(cm) << ": " << t(i, j) << " != " << want;
          }
        }
      }
}

TEST(ColourScale, IgnoreFirstKeyLeavesColumnZeroOutOfTheMax) {
  Map a(2, 3);
  a << 0.9f, 0.05f, 0.05f, 0.6f, 0.3f, 0.1f;
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, false), 0.9f);
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, true), 0.3f);
  ColourScale s;
  s.ignore_first_key = true;
  const ScaleRange r = scale_range(s, colour_scale_max({&a}, true));
  EXPECT_FLOAT_EQ(scale_unit(r, 0.9f, 0), 1.0f);   // clamped: the first key is off the scale
  EXPECT_FLOAT_EQ(scale_unit(r, 0.15f, 0), 0.5f);
}

// Encoders: "ignore first key" leaves every special token's key column out ([CLS] ... [SEP]);
// a map of block maxima (fewer columns than tokens) still leaves out column 0 only.
TEST(ColourScale, IgnoreSpecialKeysLeavesTheirColumnsOut) {
  Map a(2, 4);
  a << 0.5f, 0.1f, 0.2f, 0.2f,
       0.1f, 0.15f, 0.05f, 0.7f;
  const std::vector<bool> special = {true, false, false, true};  // [CLS] x y [SEP]
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, true, &special), 0.2f);
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, false, &special), 0.7f) << "off: every column";
  const std::vector<bool> none = {false, false, false, false};
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, true, &none), 0.7f) << "no special token: column 0 out";
  const std::vector<bool> longer = {true, false, false, false, false, false, false, true};
  EXPECT_FLOAT_EQ(colour_scale_max({&a}, true, &longer), 0.7f) << "block maxima: column 0 out";
}

TEST(ColourScale, NamesRoundTrip) {
  for (ScaleMode m : {ScaleMode::linear, ScaleMode::log, ScaleMode::row_normalised})
    EXPECT_EQ(parse_scale_mode(scale_mode_name(m)), m);
  EXPECT_THROW(parse_scale_mode("cubic"), InputError);
}

}  // namespace
}  // namespace hs
