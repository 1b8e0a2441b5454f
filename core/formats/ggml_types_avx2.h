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

}  // namespace hs
