#pragma once
// GGML tensor types (the `type` field of a GGUF tensor): every id GGML has used, its name, how
// many values one block holds and how many bytes the block takes; and dequantization to float
// of the types headscope reads: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K .. Q6_K
// (what Q4_K_M / Q5_K_M / Q8_0 model files are made of). Block layouts (little-endian, from
// ggml-common.h; "half" is an IEEE binary16 scale, QK_K = 256):
//   Q4_0 [32]:  half d, 16 bytes of 4-bit q          x = (q - 8) d
//   Q4_1 [32]:  half d, half m, 16 bytes             x = q d + m
//   Q5_0 [32]:  half d, uint32 high bits, 16 bytes   x = (q - 16) d          (q = low 4 | high bit << 4)
//   Q5_1 [32]:  half d, half m, uint32 high, 16 B    x = q d + m
//   Q8_0 [32]:  half d, 32 int8 q                    x = q d
//   Q2_K [256]: 16 scale bytes (4-bit scale | 4-bit min << 4), 64 bytes of 2-bit q, half d, half dmin
//               x = (d sc) q - (dmin m), one (sc, m) per 16 values
//   Q3_K [256]: 32 bytes high-bit mask, 64 bytes of 2-bit q, 12 bytes of 16 6-bit scales, half d
//               x = (d (sc - 32)) (q - (high bit ? 0 : 4))
//   Q4_K [256]: half d, half dmin, 12 bytes of 8 6-bit (scale, min), 128 bytes of 4-bit q
//               x = (d sc) q - (dmin m), one (sc, m) per 32 values
//   Q5_K [256]: as Q4_K plus 32 bytes of high bits before the 4-bit q (q has 5 bits)
//   Q6_K [256]: 128 bytes low 4 bits, 64 bytes high 2 bits, 16 int8 scales, half d
//               x = (d sc) (q - 32), one sc per 16 values
// The products are evaluated in that order in float32, so results are reproducible bit for bit
// (with AVX2, ggml_types_avx2.cpp evaluates the same ones 8 at a time: the same floats).
#include <cstdint>
#include <string>

namespace hs {

enum class GgmlType : uint32_t {
  F32 = 0, F16 = 1, Q4_0 = 2, Q4_1 = 3, Q5_0 = 6, Q5_1 = 7, Q8_0 = 8, Q8_1 = 9,
  Q2_K = 10, Q3_K = 11, Q4_K = 12, Q5_K = 13, Q6_K = 14, Q8_K = 15,
  IQ2_XXS = 16, IQ2_XS = 17, IQ3_XXS = 18, IQ1_S = 19, IQ4_NL = 20, IQ3_S = 21, IQ2_S = 22, IQ4_XS = 23,
  I8 = 24, I16 = 25, I32 = 26, I64 = 27, F64 = 28, IQ1_M = 29, BF16 = 30,
  TQ1_0 = 34, TQ2_0 = 35, MXFP4 = 39, NVFP4 = 40, Q1_0 = 41,
};

struct GgmlTypeInfo {
  uint32_t id = 0;
  const char* name = "";
  int64_t block_size = 0;   // values per block; 0 for ids GGML removed (their layout is gone)
  int64_t block_bytes = 0;  // bytes per block
  bool dequantizable = false;  // headscope turns it into floats
};

// The table entry of a type id, or nullptr for an id GGML never used.
const GgmlTypeInfo* ggml_type_info(uint32_t id);
const GgmlTypeInfo& ggml_type_info(GgmlType type);
const char* ggml_type_name(GgmlType type);

// "F32, F16, BF16, Q8_0, ..." (for messages that list what is accepted).
std::string ggml_dequantizable_names();

// Dequantizes `n` consecutive values (a multiple of the type's block size) from `src`, which
// needs no alignment, into `dst`. The type must be dequantizable (callers check the info first).
void dequantize_row(GgmlType type, const uint8_t* src, float* dst, int64_t n);

// IEEE binary16 bits to float, exactly (subnormals, infinities and NaN payloads included).
float ggml_half_to_float(uint16_t h);

}  // namespace hs
