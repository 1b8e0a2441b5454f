#pragma once
// Shared by the kernel files (core/util/kernel_*.cpp, core/model/quantized_product.cpp), not part of
// the API (core/util/kernels.h): which instruction set runs, 64-byte aligned float buffers, and
// the AVX2 horizontal sum.
#include <cstddef>
#include <memory>
#include <new>

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HS_X86_KERNELS 1
#include <immintrin.h>
#else
#define HS_X86_KERNELS 0
#endif

namespace hs {
namespace kernel_detail {

enum class Isa { portable, avx2, avx512 };

// The CPU's best instruction set, lowered by cap_kernels (kernels.h).
Isa isa();

// Float buffers aligned to 64 bytes for packed panels.
struct AlignedFree {
  void operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;
inline Buffer make_buffer(size_t n) {
  return Buffer(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t(64))));
}

#if HS_X86_KERNELS
__attribute__((target("avx2,fma"))) inline float hsum256(__m256 v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}
#endif

}  // namespace kernel_detail
}  // namespace hs
