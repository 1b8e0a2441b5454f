// GGML tensor types: the type table, exact half-precision conversion, and dequantization of every
// readable type against the independent numpy oracle (tests/core/formats/ggml_dequant.py), bit
// for bit: both evaluate the same float32 products in the same order on random blocks (random
// quantized bytes, finite half scales of every magnitude and sign, subnormals included).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/formats/ggml_types.h"
#include "core/formats/gguf.h"
#include "core/formats/npy.h"
#include "core/formats/safetensors.h"
#include "core/util/errors.h"
#include "core/util/kernels.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(GgmlTypes, TableHasEveryIdWithGgmlsSizes) {
  EXPECT_STREQ(ggml_type_name(GgmlType::Q4_K), "Q4_K");
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_K).block_size, 256);
  EXPECT_EQ(ggml_type_info(GgmlType::Q4_K).block_bytes, 144);
  EXPECT_EQ(ggml_type_info(GgmlType::Q6_K).block_bytes, 210);
  EXPECT_EQ(ggml_type_info(GgmlType::Q5_1).block_bytes, 24);
  EXPECT_EQ(ggml_type_info(GgmlType::BF16).block_bytes, 2);
  EXPECT_FALSE(ggml_type_info(GgmlType::IQ2_XXS).dequantizable);
  EXPECT_FALSE(ggml_type_info(GgmlType::Q8_1).dequantizable);
  ASSERT_NE(ggml_type_info(4u), nullptr);
  EXPECT_STREQ(ggml_type_info(4u)->name, "Q4_2");
  EXPECT_EQ(ggml_type_info(4u)->block_size, 0) << "removed from GGML: no layout";
  EXPECT_EQ(ggml_type_info(42u), nullptr);
  EXPECT_EQ(ggml_dequantizable_names(), "F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K, Q3_K, Q4_K, Q5_K, Q6_K");
  for (uint32_t id = 0; id < 42; ++id) EXPECT_EQ(ggml_type_info(id)->id, id);
}

TEST(GgmlTypes, HalfConversionIsExactForEveryBitPattern) {
  std::vector<uint8_t> all(2 * 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    all[2 * h] = uint8_t(h & 0xFF);
    all[2 * h + 1] = uint8_t(h >> 8);
  }
  std::vector<float> row(65536);
  dequantize_row(GgmlType::F16, all.data(), row.data(), 65536);
  for (uint32_t h = 0; h < 65536; ++h) {
    const float want = half_to_float(uint16_t(h));  // safetensors' bit-by-bit reference
    ASSERT_EQ(bits(ggml_half_to_float(uint16_t(h))), bits(want)) << "half 0x" << std::hex << h;
    ASSERT_EQ(bits(row[h]), bits(want)) << "half 0x" << std::hex << h << " in a row";
  }
  EXPECT_EQ(ggml_half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(ggml_half_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(ggml_half_to_float(0xFC00)));
}

const char* const kReadable[] = {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0",
                                 "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};

TEST(GgmlTypes, EveryReadableTypeEqualsTheNumpyOracleBitForBit) {
  HS_REQUIRE_GGUF_FILE(path, "types.gguf");
  const GgufFile file(path);
  for (const char* type : kReadable) {
    SCOPED_TRACE(type);
    const GgufTensor& t = file.tensor(std::string("t.") + type);
    EXPECT_STREQ(ggml_type_name(t.type), type);
    const NpyArray want = read_npy(test::gguf_test_dir() + "/expected_" + type + ".npy");
    ASSERT_EQ(want.shape, (std::vector<int64_t>{t.rows(), t.row_length()}));
    const std::vector<float> got = file.dequantize(t);
    ASSERT_EQ(got.size(), want.data.size());
    size_t mismatches = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      if (bits(got[i]) != bits(want.data[i])) {
        if (++mismatches <= 5) {
          ADD_FAILURE() << type << " value " << i << " (row " << i / size_t(t.row_length()) << ", column "
                        << i % size_t(t.row_length()) << "): headscope " << got[i] << ", numpy " << want.data[i]
                        << ", difference " << std::fabs(double(got[i]) - double(want.data[i]));
        }
      }
    }
    EXPECT_EQ(mismatches, 0u) << "of " << got.size() << " values";
    // A block of rows from the middle equals the same rows of the whole tensor.
    const int64_t first = 1, count = t.rows() - 1;
    std::vector<float> part(size_t(count * t.row_length()));
    file.dequantize_rows(t, first, count, part.data());
    EXPECT_EQ(0, std::memcmp(part.data(), got.data() + first * t.row_length(), part.size() * sizeof(float)));
  }
}

// The AVX2 decoders (ggml_types_avx2.cpp) against the portable loops, bit for bit, on random
// blocks of every readable type: random bytes (every half pattern: NaNs, infinities, subnormals)
// and blocks whose half scales are set to edge values. One exception: where both give a NaN from
// NaN or infinite scales (q d + m of Q4_1, Q5_1), which NaN (sign, payload) x86 returns follows
// the order the compiler gave the operands, so any NaN matches any NaN.
TEST(GgmlTypes, Avx2DecodersEqualThePortableLoopsBitForBit) {
  cap_kernels("avx512");
  if (std::string(kernel_isa()) == "portable") GTEST_SKIP() << "no AVX2 on this CPU (or HEADSCOPE_KERNELS=portable)";
  struct Case {
    GgmlType type;
    std::vector<int> halves;  // offsets of the block's half scales
  };
  const Case cases[] = {{GgmlType::F16, {0}},       {GgmlType::BF16, {}},        {GgmlType::Q8_0, {0}},
                        {GgmlType::Q4_0, {0}},      {GgmlType::Q4_1, {0, 2}},    {GgmlType::Q5_0, {0}},
                        {GgmlType::Q5_1, {0, 2}},   {GgmlType::Q2_K, {80, 82}},  {GgmlType::Q3_K, {108}},
                        {GgmlType::Q4_K, {0, 2}},   {GgmlType::Q5_K, {0, 2}},    {GgmlType::Q6_K, {208}}};
  const uint16_t edges[] = {0x0000, 0x8000, 0x0001, 0x83FF, 0x0400, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00,
                            0x7E00, 0x7C01, 0xFE01, 0x3C00, 0x1418, 0xB555};
  std::mt19937 rng(34);
  for (const Case& c : cases) {
    SCOPED_TRACE(ggml_type_name(c.type));
    const GgmlTypeInfo& info = ggml_type_info(c.type);
    const int64_t blocks = info.block_size == 1 ? 70000 : 600;  // F16: every bit pattern, about
    std::vector<uint8_t> raw(size_t(blocks * info.block_bytes));
    for (uint8_t& b : raw) b = uint8_t(rng());
    for (int64_t i = 0; i < blocks / 2; ++i)  // the first half of the blocks: edge scales
      for (const int at : c.halves) {
        const uint16_t h = edges[size_t(rng()) % (sizeof edges / sizeof edges[0])];
        std::memcpy(raw.data() + i * info.block_bytes + at, &h, 2);
      }
    const int64_t n = blocks * info.block_size;
    std::vector<float> simd(static_cast<size_t>(n)), portable(static_cast<size_t>(n));
    dequantize_row(c.type, raw.data(), simd.data(), n);
    cap_kernels("portable");
    dequantize_row(c.type, raw.data(), portable.data(), n);
    cap_kernels("avx512");
    size_t mismatches = 0;
    for (int64_t i = 0; i < n; ++i)
      if (bits(simd[size_t(i)]) != bits(portable[size_t(i)]) &&
          !(std::isnan(simd[size_t(i)]) && std::isnan(portable[size_t(i)])) && ++mismatches <= 5)
        ADD_FAILURE() << "value " << i << " (block " << i / info.block_size << "): AVX2 " << simd[size_t(i)]
                      << " (bits " << std::hex << bits(simd[size_t(i)]) << "), portable " << portable[size_t(i)]
                      << " (bits " << bits(portable[size_t(i)]) << std::dec << ")";
    EXPECT_EQ(mismatches, 0u) << "of " << n << " values";
  }
}

TEST(GgmlTypes, OtherTypesAreRefusedByNameAndTensor) {
  HS_REQUIRE_GGUF_FILE(path, "types.gguf");
  const GgufFile file(path);  // opening works: only reading the values is refused
  for (const char* type : {"IQ2_XXS", "Q8_1", "TQ1_0", "I32", "F64"}) {
    const std::string name = std::string("t.") + type;
    try {
      file.dequantize(file.tensor(name));
      ADD_FAILURE() << type << " was dequantized";
    } catch (const FormatError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("tensor '" + name + "'"), std::string::npos) << what;
      EXPECT_NE(what.find(std::string("has type ") + type + ", which headscope cannot read"), std::string::npos) << what;
      EXPECT_NE(what.find("Q4_K"), std::string::npos) << "lists what is readable: " << what;
    }
  }
}

}  // namespace
}  // namespace hs
