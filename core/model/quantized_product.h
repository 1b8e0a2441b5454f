#pragma once
// y = x W^T for a weight W kept in its GGML encoding (QuantizedMatrix's products), with W decoded
// a few rows at a time into L1 and never written out whole:
//   many tokens (T >= kFewTokens, a micro-kernel here): x is packed once into the micro-kernel's
//     k-major panels of NR tokens (core/util/kernel_micro.h); for each group of W's rows and each
//     depth block of 256, MR rows of W are decoded into L1 (dequantize_row: exactly the floats
//     ggml_types produces) and multiplied straight from there, as the micro-kernel's broadcast
//     operand, with every panel of tokens: y^T[rows, tokens] accumulates in an L2-sized buffer,
//     written into y once per group.
//   few tokens (one typed token): on AVX2, each quantized row of W is decoded block by block
//     straight into registers and multiplied with every row of x (dot_rows_avx2,
//     core/formats/ggml_types_avx2.h); otherwise (F32, F16, BF16, the portable path) a few rows
//     of W at a time are decoded and dotted with sgemm_few_rows. One pass over the encoded weights.
// Every entry of y is summed in the same order whatever block of rows it is computed in, so a
// product split between threads by rows gives the same bits as one call.
#include <cstddef>
#include <cstdint>

#include "core/formats/ggml_types.h"
#include "core/util/kernel_isa.h"
#include "core/util/tensor.h"

namespace hs {

// W [rows, cols] in a GGML encoding: row r's bytes start at data + r * row_bytes.
struct EncodedRows {
  GgmlType type = GgmlType::F32;
  const uint8_t* data = nullptr;
  size_t row_bytes = 0;
  int64_t rows = 0, cols = 0;
};

// Fewer tokens than this take the few-tokens path.
constexpr int64_t kFewTokens = 8;

// x [T, K] as the micro-kernel's right operand (empty on the few-tokens path or with no
// micro-kernel): for each depth block of 256 starting at pc, at pc * T_pad, panels of NR tokens
// (T_pad: T rounded up to NR; tokens past T are 0), k-major inside. Keeps a pointer to x.
class PackedTokens {
 public:
  explicit PackedTokens(const Map& x);
  const Map& x() const { return *x_; }
  bool packed() const { return data_ != nullptr; }
  int64_t padded_tokens() const { return t_pad_; }
  int panel() const { return nr_; }
  const float* block(int64_t pc) const { return data_.get() + pc * t_pad_; }

 private:
  const Map* x_;
  int nr_ = 0;
  int64_t t_pad_ = 0;
  kernel_detail::Buffer data_;
};

// y[t * ldy + j] = sum_k x[t, k] W[r0 + j, k] for t < T, j < n (rows r0 .. r0 + n - 1 of W).
void encoded_product(const EncodedRows& w, int64_t r0, int64_t n, const PackedTokens& xp, float* y, int64_t ldy);

}  // namespace hs
