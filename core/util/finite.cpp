#include "core/util/finite.h"

#include <cmath>
#include <cstring>

namespace hs {

int64_t first_non_finite(const float* data, int64_t n) {
  // A float is NaN or infinite exactly when its 8 exponent bits are all ones. Blocks of 4096:
  // an OR over the block (vectorised) first, the exact position only in a block that has one.
  constexpr int64_t kBlock = 4096;
  constexpr uint32_t kExponent = 0x7F800000u;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = b + kBlock < n ? b + kBlock : n;
    uint32_t any = 0;
    for (int64_t i = b; i < e; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + i, 4);
      any |= uint32_t((bits & kExponent) == kExponent);
    }
    if (any)
      for (int64_t i = b; i < e; ++i)
        if (!std::isfinite(data[i])) return i;
  }
  return -1;
}

std::string non_finite_name(float v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "inf" : "-inf";
}

std::string element_text(int64_t index, const std::vector<int64_t>& shape) {
  std::vector<int64_t> at(shape.size(), 0);
  for (size_t k = shape.size(); k-- > 0;) {
    if (shape[k] <= 0) continue;
    at[k] = index % shape[k];
    index /= shape[k];
  }
  std::string s = "[";
  for (size_t k = 0; k < at.size(); ++k) s += (k ? ", " : "") + std::to_string(at[k]);
  return s + "]";
}

}  // namespace hs
