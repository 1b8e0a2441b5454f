#pragma once
// dequantize_row (ggml_types.h) on AVX2: every readable type's blocks decoded 8 values at a time,
// with the same float32 operations in the same order as the portable loops, so the floats are the
// same bit for bit (the file is compiled with -ffp-contract=off, as ggml_types.cpp: no product
// and sum may fuse into an fma). ggml_types.cpp calls it when the CPU has AVX2 and the kernels are
// not capped at "portable" (core/util/kernels.h cap_kernels).
#include <cstdint>

#include "core/formats/ggml_types.h"

namespace hs {

// `nb` blocks of `type` from `src` into `dst` (nb * block_size floats); false (nothing written)
// for a type without an AVX2 decoder or on a CPU or build without AVX2.
bool dequantize_blocks_avx2(GgmlType type, const uint8_t* src, float* dst, int64_t nb);

// y[t * ldy + j] = sum_k x[t * ldx + k] W[j, k] for t < T (1..7), j < n, with W's rows `row_bytes`
// apart from `w` in `type` and K values each (a multiple of the block size): the one-token
// product, decode fused with the dot products. Each row is decoded block by block straight into
// registers by the same decoders as dequantize_blocks_avx2 (exactly the floats above: the decoders
// hand each 32 values to a sink that stores them or FMAs them with every row of x) into float32
// sums of 8 lanes, added at the end; one row at a time, in order, the next rows prefetched. False
// (nothing written) for F32/F16/BF16, other types, T outside 1..7 or a CPU or build without
// AVX2 and F16C.
bool dot_rows_avx2(GgmlType type, const uint8_t* w, size_t row_bytes, int64_t n, int64_t K, const float* x,
                   int64_t ldx, int T, float* y, int64_t ldy);

}  // namespace hs
