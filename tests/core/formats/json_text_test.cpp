// JSON floats (core/formats/json_text.h): exactly the text printf("%.9g") writes, for every kind
// of float (normal, denormal, zero of either sign, huge, tiny); non-finite values as null.
#include "core/formats/json_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace hs {
namespace {

std::string printf9g(float v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  return buf;
}

std::string written(float v) {
  std::ostringstream out;
  write_json_float(out, v);
  return out.str();
}

TEST(JsonText, FloatsArePrintf9g) {
  std::vector<float> values = {0.0f, -0.0f, 1.0f, -1.0f, 0.1f, 1e-5f, 1e-4f, 123456789.0f, 1e9f, 1e10f, 0.5f, 1.0f / 3.0f,
                               std::numeric_limits<float>::min(), std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::lowest(),
                               std::numeric_limits<float>::epsilon(), 999999999.0f, 99999.9999f, 0.000099999f};
  std::mt19937 rng(5);
  for (int i = 0; i < 300000; ++i) {  // every bit pattern class: random bits (denormals included)
    const uint32_t bits = uint32_t(rng());
    float v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  for (int i = 0; i < 100000; ++i) values.push_back(std::uniform_real_distribution<float>(0.0f, 1.0f)(rng));  // weights
  for (uint32_t bits = 1; bits < 5000; ++bits) {  // the smallest denormals
    float v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  int compared = 0;
  for (float v : values) {
    if (!std::isfinite(v)) continue;
    ASSERT_EQ(written(v), printf9g(v)) << "bits of " << printf9g(v);
    ++compared;
  }
  EXPECT_GT(compared, 390000);
}

TEST(JsonText, NonFiniteFloatsAreNull) {
  EXPECT_EQ(written(std::numeric_limits<float>::infinity()), "null");
  EXPECT_EQ(written(-std::numeric_limits<float>::infinity()), "null");
  EXPECT_EQ(written(std::numeric_limits<float>::quiet_NaN()), "null");
}

}  // namespace
}  // namespace hs
