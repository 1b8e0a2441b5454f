#pragma once
// The packed 6-bit block scales of GGML's K-quants, unpacked the same way by the portable
// decoders (ggml_types.cpp) and the AVX2 ones (ggml_types_avx2.cpp).
#include <cstdint>

namespace hs {

// The 8 (scale, min) pairs of Q4_K and Q5_K, 6 bits each, packed in 12 bytes: pair j.
inline void scale_min_k4(int j, const uint8_t* q, int& sc, int& m) {
  if (j < 4) {
    sc = q[j] & 63;
    m = q[j + 4] & 63;
  } else {
    sc = (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4);
    m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// Q3_K's 16 scales are 6 bits, stored at `s` (12 bytes): the low 4 bits are the low (j < 8) or
// high (j >= 8) nibble of byte j mod 8, the top 2 bits come from byte 8 + j mod 4 at bit
// 2 (j / 4); each is offset by 32.
inline void q3_k_scales(const uint8_t* s, int scale[16]) {
  for (int j = 0; j < 16; ++j) {
    const int low = j < 8 ? (s[j] & 0x0F) : (s[j - 8] >> 4);
    const int high = (s[8 + j % 4] >> (2 * (j / 4))) & 3;
    scale[j] = (low | (high << 4)) - 32;
  }
}

}  // namespace hs
