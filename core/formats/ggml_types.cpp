#include "core/formats/ggml_types.h"

#include "core/formats/ggml_k_scales.h"
#include "core/formats/ggml_types_avx2.h"

#include <cassert>
#include <cstring>

namespace hs {
namespace {

// Every id GGML has given out (gguf-py's GGMLQuantizationType and GGML_QUANT_SIZES). Ids 4, 5,
// 31-33 and 36-38 were removed from GGML: files may still name them, but no layout remains.
constexpr GgmlTypeInfo kTypes[] = {
    {0, "F32", 1, 4, true},        {1, "F16", 1, 2, true},          {2, "Q4_0", 32, 18, true},
    {3, "Q4_1", 32, 20, true},     {4, "Q4_2", 0, 0, false},        {5, "Q4_3", 0, 0, false},
    {6, "Q5_0", 32, 22, true},     {7, "Q5_1", 32, 24, true},       {8, "Q8_0", 32, 34, true},
    {9, "Q8_1", 32, 40, false},    {10, "Q2_K", 256, 84, true},     {11, "Q3_K", 256, 110, true},
    {12, "Q4_K", 256, 144, true},  {13, "Q5_K", 256, 176, true},    {14, "Q6_K", 256, 210, true},
    {15, "Q8_K", 256, 292, false}, {16, "IQ2_XXS", 256, 66, false}, {17, "IQ2_XS", 256, 74, false},
    {18, "IQ3_XXS", 256, 98, false}, {19, "IQ1_S", 256, 50, false}, {20, "IQ4_NL", 32, 18, false},
    {21, "IQ3_S", 256, 110, false}, {22, "IQ2_S", 256, 82, false},  {23, "IQ4_XS", 256, 136, false},
    {24, "I8", 1, 1, false},       {25, "I16", 1, 2, false},        {26, "I32", 1, 4, false},
    {27, "I64", 1, 8, false},      {28, "F64", 1, 8, false},        {29, "IQ1_M", 256, 56, false},
    {30, "BF16", 1, 2, true},      {31, "Q4_0_4_4", 0, 0, false},   {32, "Q4_0_4_8", 0, 0, false},
    {33, "Q4_0_8_8", 0, 0, false}, {34, "TQ1_0", 256, 54, false},   {35, "TQ2_0", 256, 66, false},
    {36, "IQ4_NL_4_4", 0, 0, false}, {37, "IQ4_NL_4_8", 0, 0, false}, {38, "IQ4_NL_8_8", 0, 0, false},
    {39, "MXFP4", 32, 17, false},  {40, "NVFP4", 64, 36, false},    {41, "Q1_0", 128, 18, false},
};
constexpr uint32_t kTypeCount = sizeof(kTypes) / sizeof(kTypes[0]);

inline uint16_t load_u16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }

inline float bits_to_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
inline uint32_t float_to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// IEEE half to float, branch-free so row loops vectorise: normal numbers are the half's exponent
// and mantissa shifted into place and rescaled by 2^-112; subnormals are built exactly as
// (0.5 + m 2^-24) - 0.5; infinities and NaNs copy their mantissa bits.
inline float half_bits_to_float(uint16_t h) {
  const uint32_t w = uint32_t(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t two_w = w + w;
  const float normal = bits_to_float((two_w >> 4) + (0xE0u << 23)) * 0x1.0p-112f;
  const float subnormal = bits_to_float((two_w >> 17) | (126u << 23)) - 0.5f;
  // Selections by bit masks (all ones or zero) rather than branches.
  const uint32_t is_subnormal = 0u - uint32_t(two_w < (1u << 27));
  const uint32_t finite = sign | (float_to_bits(subnormal) & is_subnormal) | (float_to_bits(normal) & ~is_subnormal);
  const uint32_t special = sign | 0x7F800000u | (uint32_t(h & 0x03FFu) << 13);
  const uint32_t is_special = 0u - uint32_t((h & 0x7C00u) == 0x7C00u);
  return bits_to_float((special & is_special) | (finite & ~is_special));
}

inline uint32_t load_u32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }
inline float half_at(const uint8_t* p) { return half_bits_to_float(load_u16(p)); }

void dequant_f32(const uint8_t* __restrict src, float* __restrict y, int64_t n) { std::memcpy(y, src, size_t(n) * 4); }

void dequant_f16(const uint8_t* __restrict src, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = half_bits_to_float(load_u16(src + 2 * i));
}

void dequant_bf16(const uint8_t* __restrict src, float* __restrict y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = bits_to_float(uint32_t(load_u16(src + 2 * i)) << 16);
}

// x = (q - 8) d: q's low nibbles are values 0..15, high nibbles 16..31.
void dequant_q4_0(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 18, y += 32) {
    const float d = half_at(b);
    const uint8_t* q = b + 2;
    for (int j = 0; j < 16; ++j) {
      y[j] = float(int(q[j] & 0x0F) - 8) * d;
      y[j + 16] = float(int(q[j] >> 4) - 8) * d;
    }
  }
}

// x = q d + m
void dequant_q4_1(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 20, y += 32) {
    const float d = half_at(b), m = half_at(b + 2);
    const uint8_t* q = b + 4;
    for (int j = 0; j < 16; ++j) {
      y[j] = float(q[j] & 0x0F) * d + m;
      y[j + 16] = float(q[j] >> 4) * d + m;
    }
  }
}

// Bit j of the 32-bit high word is the fifth bit of value j. The 32 fifth bits are spread into
// bytes (16 or 0) a high-word byte at a time through a table: about 1.3x faster here than
// shifting the word by the loop index (Q5_0 holds most of a Qwen2.5-0.5B Q4_K_M file).
struct FifthBits {
  uint8_t of[256][8];  // of[v][i] = 16 when bit i of v is set
  constexpr FifthBits() : of() {
    for (int v = 0; v < 256; ++v)
      for (int i = 0; i < 8; ++i) of[v][i] = uint8_t(((v >> i) & 1) << 4);
  }
};
constexpr FifthBits kFifthBits;

inline void fifth_bits(uint32_t qh, uint8_t* __restrict h) {  // h: 32 bytes
  for (int k = 0; k < 4; ++k) std::memcpy(h + 8 * k, kFifthBits.of[(qh >> (8 * k)) & 0xFFu], 8);
}

void dequant_q5_0(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  uint8_t h[32];
  for (int64_t i = 0; i < nb; ++i, b += 22, y += 32) {
    const float d = half_at(b);
    fifth_bits(load_u32(b + 2), h);
    const uint8_t* q = b + 6;
    for (int j = 0; j < 16; ++j) {
      y[j] = float((int(q[j] & 0x0F) | int(h[j])) - 16) * d;
      y[j + 16] = float((int(q[j] >> 4) | int(h[j + 16])) - 16) * d;
    }
  }
}

void dequant_q5_1(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  uint8_t h[32];
  for (int64_t i = 0; i < nb; ++i, b += 24, y += 32) {
    const float d = half_at(b), m = half_at(b + 2);
    fifth_bits(load_u32(b + 4), h);
    const uint8_t* q = b + 8;
    for (int j = 0; j < 16; ++j) {
      y[j] = float(int(q[j] & 0x0F) | int(h[j])) * d + m;
      y[j + 16] = float(int(q[j] >> 4) | int(h[j + 16])) * d + m;
    }
  }
}

void dequant_q8_0(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 34, y += 32) {
    const float d = half_at(b);
    const auto* q = reinterpret_cast<const int8_t*>(b + 2);
    for (int j = 0; j < 32; ++j) y[j] = float(q[j]) * d;
  }
}

// Q2_K: value 128 h + 32 j + 16 s + l (h: half, j: 2-bit plane, s: sub-block) reads bits 2j of
// q[32 h + 16 s + l] and scale byte 8 h + 2 j + s.
void dequant_q2_k(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 84) {
    const uint8_t* scales = b;
    const float d = half_at(b + 80), dmin = half_at(b + 82);
    for (int h = 0; h < 2; ++h) {
      const uint8_t* q = b + 16 + 32 * h;
      for (int j = 0; j < 4; ++j) {
        const int shift = 2 * j;
        for (int s = 0; s < 2; ++s, y += 16) {
          const uint8_t sc = scales[8 * h + 2 * j + s];
          const float dl = d * float(sc & 0x0F), ml = dmin * float(sc >> 4);
          for (int l = 0; l < 16; ++l) y[l] = dl * float((q[16 * s + l] >> shift) & 3) - ml;
        }
      }
    }
  }
}

// Q3_K: scales unpacked by q3_k_scales (ggml_k_scales.h).
void dequant_q3_k(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 110) {
    const uint8_t* hmask = b;
    const uint8_t* s = b + 96;
    const float d = half_at(b + 108);
    int scale[16];
    q3_k_scales(s, scale);
    for (int h = 0; h < 2; ++h) {
      const uint8_t* q = b + 32 + 32 * h;
      for (int j = 0; j < 4; ++j) {
        const int shift = 2 * j;
        const int bit = 4 * h + j;  // high bit set: q; clear: q - 4
        for (int sub = 0; sub < 2; ++sub, y += 16) {
          const float dl = d * float(scale[8 * h + 2 * j + sub]);
          for (int l = 0; l < 16; ++l) {
            const int k = 16 * sub + l;
            y[l] = dl * float(((q[k] >> shift) & 3) - 4 + 4 * ((hmask[k] >> bit) & 1));
          }
        }
      }
    }
  }
}


void dequant_q4_k(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 144) {
    const float d = half_at(b), dmin = half_at(b + 2);
    const uint8_t* scales = b + 4;
    for (int j = 0; j < 4; ++j, y += 64) {
      const uint8_t* q = b + 16 + 32 * j;
      int sc, m;
      scale_min_k4(2 * j, scales, sc, m);
      const float d1 = d * float(sc), m1 = dmin * float(m);
      scale_min_k4(2 * j + 1, scales, sc, m);
      const float d2 = d * float(sc), m2 = dmin * float(m);
      for (int l = 0; l < 32; ++l) y[l] = d1 * float(q[l] & 0x0F) - m1;
      for (int l = 0; l < 32; ++l) y[32 + l] = d2 * float(q[l] >> 4) - m2;
    }
  }
}

void dequant_q5_k(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 176) {
    const float d = half_at(b), dmin = half_at(b + 2);
    const uint8_t* scales = b + 4;
    const uint8_t* qh = b + 16;
    for (int j = 0; j < 4; ++j, y += 64) {
      const uint8_t* ql = b + 48 + 32 * j;
      const int bit1 = 2 * j, bit2 = 2 * j + 1;  // the fifth bits of the two halves
      int sc, m;
      scale_min_k4(2 * j, scales, sc, m);
      const float d1 = d * float(sc), m1 = dmin * float(m);
      scale_min_k4(2 * j + 1, scales, sc, m);
      const float d2 = d * float(sc), m2 = dmin * float(m);
      for (int l = 0; l < 32; ++l) y[l] = d1 * float((ql[l] & 0x0F) + (((qh[l] >> bit1) & 1) << 4)) - m1;
      for (int l = 0; l < 32; ++l) y[32 + l] = d2 * float((ql[l] >> 4) + (((qh[l] >> bit2) & 1) << 4)) - m2;
    }
  }
}

// Q6_K: in each half h of 128 values, value 32 p + l (p = 0..3) takes nibble p / 2 of
// ql[l + 32 (p mod 2)], bits 2p of qh[l], and scale 8 h + 2 p + l / 16.
void dequant_q6_k(const uint8_t* __restrict b, float* __restrict y, int64_t nb) {
  for (int64_t i = 0; i < nb; ++i, b += 210) {
    const float d = half_at(b + 208);
    const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
    for (int h = 0; h < 2; ++h) {
      const uint8_t* qh = b + 128 + 32 * h;
      for (int p = 0; p < 4; ++p) {
        const uint8_t* ql = b + 64 * h + 32 * (p & 1);
        const int low_shift = 4 * (p >> 1), high_shift = 2 * p;
        for (int s = 0; s < 2; ++s, y += 16) {
          const float scale = d * float(sc[8 * h + 2 * p + s]);
          for (int l = 0; l < 16; ++l) {
            const int k = 16 * s + l;
            const int q = int(((ql[k] >> low_shift) & 0x0F) | (((qh[k] >> high_shift) & 3) << 4)) - 32;
            y[l] = scale * float(q);
          }
        }
      }
    }
  }
}

}  // namespace

float ggml_half_to_float(uint16_t h) { return half_bits_to_float(h); }

const GgmlTypeInfo* ggml_type_info(uint32_t id) { return id < kTypeCount ? &kTypes[id] : nullptr; }

const GgmlTypeInfo& ggml_type_info(GgmlType type) {
  const GgmlTypeInfo* info = ggml_type_info(static_cast<uint32_t>(type));
  assert(info && "GgmlType values are table ids");
  return *info;
}

const char* ggml_type_name(GgmlType type) { return ggml_type_info(type).name; }

std::string ggml_dequantizable_names() {
  static const GgmlType kOrder[] = {GgmlType::F32,  GgmlType::F16,  GgmlType::BF16, GgmlType::Q8_0, GgmlType::Q4_0,
                                    GgmlType::Q4_1, GgmlType::Q5_0, GgmlType::Q5_1, GgmlType::Q2_K, GgmlType::Q3_K,
                                    GgmlType::Q4_K, GgmlType::Q5_K, GgmlType::Q6_K};
  std::string out;
  for (const GgmlType t : kOrder) out += (out.empty() ? "" : ", ") + std::string(ggml_type_name(t));
  return out;
}

void dequantize_row(GgmlType type, const uint8_t* src, float* dst, int64_t n) {
  const GgmlTypeInfo& info = ggml_type_info(type);
  assert(info.dequantizable && "check ggml_type_info(type).dequantizable first");
  assert(n % info.block_size == 0 && "whole blocks only");
  if (n <= 0) return;
  const int64_t nb = n / info.block_size;
  if (dequantize_blocks_avx2(type, src, dst, nb)) return;  // the same floats, 8 at a time
  switch (type) {
    case GgmlType::F32: dequant_f32(src, dst, n); break;
    case GgmlType::F16: dequant_f16(src, dst, n); break;
    case GgmlType::BF16: dequant_bf16(src, dst, n); break;
    case GgmlType::Q4_0: dequant_q4_0(src, dst, nb); break;
    case GgmlType::Q4_1: dequant_q4_1(src, dst, nb); break;
    case GgmlType::Q5_0: dequant_q5_0(src, dst, nb); break;
    case GgmlType::Q5_1: dequant_q5_1(src, dst, nb); break;
    case GgmlType::Q8_0: dequant_q8_0(src, dst, nb); break;
    case GgmlType::Q2_K: dequant_q2_k(src, dst, nb); break;
    case GgmlType::Q3_K: dequant_q3_k(src, dst, nb); break;
    case GgmlType::Q4_K: dequant_q4_k(src, dst, nb); break;
    case GgmlType::Q5_K: dequant_q5_k(src, dst, nb); break;
    case GgmlType::Q6_K: dequant_q6_k(src, dst, nb); break;
    default: assert(false && "not a dequantizable type"); break;
  }
}

}  // namespace hs
