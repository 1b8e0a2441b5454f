#include "core/formats/ggml_types_avx2.h"

#include <algorithm>
#include <cstring>

#include "core/formats/ggml_k_scales.h"
#include "core/util/kernel_isa.h"

#if HS_X86_KERNELS
#include <cpuid.h>
#endif

namespace hs {
namespace {

#if HS_X86_KERNELS
#define HS_AVX2 __attribute__((target("avx2,fma,f16c")))
#define HS_AVX2_INLINE __attribute__((target("avx2,fma,f16c"), always_inline)) inline

// The half-precision scales with F16C: exact for every half (subnormals, infinities; a NaN stays
// a NaN of the same payload once multiplied, as every scale is), as ggml_half_to_float.
HS_AVX2_INLINE float half_at(const uint8_t* p) { return _cvtsh_ss(uint16_t(p[0] | (p[1] << 8))); }
inline uint32_t u32_at(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;  // little-endian, as the file (x86 only here)
}

// 8 signed bytes (the low half of v) as floats.
HS_AVX2_INLINE __m256 floats8(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)); }
HS_AVX2_INLINE __m128i high8(__m128i v) { return _mm_srli_si128(v, 8); }
HS_AVX2_INLINE __m128i lo128(__m256i v) { return _mm256_castsi256_si128(v); }
HS_AVX2_INLINE __m128i hi128(__m256i v) { return _mm256_extracti128_si256(v, 1); }

// The decoders below hand each 32 decoded values, in order, to a sink as four vectors of 8
// (sink(v0, v1, v2, v3)): StoreSink writes them out (dequantize_blocks_avx2), DotSink FMAs them
// with the activations (dot_rows_avx2), so the decoding is written once and the fused product
// sees exactly the floats dequantize_row gives.
struct StoreSink {
  float* y;
  HS_AVX2_INLINE void operator()(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
    _mm256_storeu_ps(y, v0);
    _mm256_storeu_ps(y + 8, v1);
    _mm256_storeu_ps(y + 16, v2);
    _mm256_storeu_ps(y + 24, v3);
    y += 32;
  }
};

// float(q) * d for 32 signed bytes q (as the portable loops: one product each).
template <class Sink>
HS_AVX2_INLINE void scaled32(__m256i q, __m256 d, Sink& sink) {
  sink(_mm256_mul_ps(floats8(lo128(q)), d), _mm256_mul_ps(floats8(high8(lo128(q))), d),
       _mm256_mul_ps(floats8(hi128(q)), d), _mm256_mul_ps(floats8(high8(hi128(q))), d));
}
// float(q) * d + m (Q4_1, Q5_1): the product rounded, then the sum.
template <class Sink>
HS_AVX2_INLINE void scaled32_plus(__m256i q, __m256 d, __m256 m, Sink& sink) {
  sink(_mm256_add_ps(_mm256_mul_ps(floats8(lo128(q)), d), m), _mm256_add_ps(_mm256_mul_ps(floats8(high8(lo128(q))), d), m),
       _mm256_add_ps(_mm256_mul_ps(floats8(hi128(q)), d), m), _mm256_add_ps(_mm256_mul_ps(floats8(high8(hi128(q))), d), m));
}
// d * float(q) - m per 16 values: (d0, m0) for q's first 16 bytes, (d1, m1) for the next 16
// (Q2_K, Q4_K, Q5_K; one (d, m) for all 32: pass it twice).
template <class Sink>
HS_AVX2_INLINE void scaled32_minus(__m256i q, float d0, float m0, float d1, float m1, Sink& sink) {
  const __m256 vd0 = _mm256_set1_ps(d0), vm0 = _mm256_set1_ps(m0), vd1 = _mm256_set1_ps(d1), vm1 = _mm256_set1_ps(m1);
  sink(_mm256_sub_ps(_mm256_mul_ps(vd0, floats8(lo128(q))), vm0), _mm256_sub_ps(_mm256_mul_ps(vd0, floats8(high8(lo128(q)))), vm0),
       _mm256_sub_ps(_mm256_mul_ps(vd1, floats8(hi128(q))), vm1), _mm256_sub_ps(_mm256_mul_ps(vd1, floats8(high8(hi128(q)))), vm1));
}
// s * float(q), s0 for the first 16 values, s1 for the next 16 (Q3_K, Q6_K).
template <class Sink>
HS_AVX2_INLINE void scaled32_two(__m256i q, float s0, float s1, Sink& sink) {
  const __m256 v0 = _mm256_set1_ps(s0), v1 = _mm256_set1_ps(s1);
  sink(_mm256_mul_ps(v0, floats8(lo128(q))), _mm256_mul_ps(v0, floats8(high8(lo128(q)))),
       _mm256_mul_ps(v1, floats8(hi128(q))), _mm256_mul_ps(v1, floats8(high8(hi128(q)))));
}

// The 16 bytes at p as 32 nibbles: low nibbles first (values 0..15), then high nibbles (16..31).
HS_AVX2_INLINE __m256i nibbles32(const uint8_t* p) {
  const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const __m128i mask = _mm_set1_epi8(0x0F);
  return _mm256_set_m128i(_mm_and_si128(_mm_srli_epi16(q, 4), mask), _mm_and_si128(q, mask));
}
// Bit j of qh as byte j: 0xFF when set, else 0.
HS_AVX2_INLINE __m256i fifth_mask32(uint32_t qh) {
  const __m256i spread = _mm256_shuffle_epi8(_mm256_set1_epi32(int(qh)),
                                             _mm256_set_epi64x(0x0303030303030303, 0x0202020202020202,
                                                               0x0101010101010101, 0x0000000000000000));
  const __m256i bit = _mm256_set1_epi64x(0x8040201008040201);  // byte i of each 8: bit i
  return _mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit);
}
// Bit j of qh as byte j: 16 when set, else 0 (the fifth bits of Q5_1).
HS_AVX2_INLINE __m256i fifth_bits32(uint32_t qh) { return _mm256_and_si256(fifth_mask32(qh), _mm256_set1_epi8(16)); }
// (v >> shift) & mask in every byte of 32.
HS_AVX2_INLINE __m256i bits32(__m256i v, int shift, int mask) {
  return _mm256_and_si256(_mm256_srl_epi16(v, _mm_cvtsi32_si128(shift)), _mm256_set1_epi8(char(mask)));
}
HS_AVX2_INLINE __m256i load32(const uint8_t* p) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }

// Each decoder: block_size values in block_bytes bytes; decode(b, nb, sink) hands nb blocks' values
// to the sink, 32 at a time, in order.
struct Q8_0 {
  static constexpr int64_t block_size = 32, block_bytes = 34;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) scaled32(load32(b + 2), _mm256_set1_ps(half_at(b)), sink);
  }
};

struct Q4_0 {
  static constexpr int64_t block_size = 32, block_bytes = 18;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes)
      scaled32(_mm256_sub_epi8(nibbles32(b + 2), _mm256_set1_epi8(8)), _mm256_set1_ps(half_at(b)), sink);
  }
};

struct Q4_1 {
  static constexpr int64_t block_size = 32, block_bytes = 20;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes)
      scaled32_plus(nibbles32(b + 4), _mm256_set1_ps(half_at(b)), _mm256_set1_ps(half_at(b + 2)), sink);
  }
};

struct Q5_0 {
  static constexpr int64_t block_size = 32, block_bytes = 22;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      // (low | fifth << 4) - 16 as a signed byte: low when the fifth bit is set, else low | 0xF0.
      const __m256i q = _mm256_or_si256(nibbles32(b + 6), _mm256_andnot_si256(fifth_mask32(u32_at(b + 2)), _mm256_set1_epi8(char(0xF0))));
      scaled32(q, _mm256_set1_ps(half_at(b)), sink);
    }
  }
};

struct Q5_1 {
  static constexpr int64_t block_size = 32, block_bytes = 24;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const __m256i q = _mm256_or_si256(nibbles32(b + 8), fifth_bits32(u32_at(b + 4)));
      scaled32_plus(q, _mm256_set1_ps(half_at(b)), _mm256_set1_ps(half_at(b + 2)), sink);
    }
  }
};

// Q2_K: value 128 h + 32 j + 16 s + l is bits 2j of q[32 h + 16 s + l], scale byte 8 h + 2 j + s.
struct Q2_K {
  static constexpr int64_t block_size = 256, block_bytes = 84;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const float d = half_at(b + 80), dmin = half_at(b + 82);
      for (int h = 0; h < 2; ++h) {
        const __m256i q = load32(b + 16 + 32 * h);
        for (int j = 0; j < 4; ++j) {
          const uint8_t s0 = b[8 * h + 2 * j], s1 = b[8 * h + 2 * j + 1];
          scaled32_minus(bits32(q, 2 * j, 3), d * float(s0 & 0x0F), dmin * float(s0 >> 4), d * float(s1 & 0x0F),
                         dmin * float(s1 >> 4), sink);
        }
      }
    }
  }
};

// Q3_K: q - 4 + 4 * (high bit), scales as in ggml_types.cpp.
struct Q3_K {
  static constexpr int64_t block_size = 256, block_bytes = 110;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const uint8_t* s = b + 96;
      const float d = half_at(b + 108);
      int scale[16];
      q3_k_scales(s, scale);
      const __m256i hmask = load32(b);
      for (int h = 0; h < 2; ++h) {
        const __m256i q = load32(b + 32 + 32 * h);
        for (int j = 0; j < 4; ++j) {
          const __m256i v = _mm256_add_epi8(_mm256_sub_epi8(bits32(q, 2 * j, 3), _mm256_set1_epi8(4)),
                                            _mm256_slli_epi16(bits32(hmask, 4 * h + j, 1), 2));
          scaled32_two(v, d * float(scale[8 * h + 2 * j]), d * float(scale[8 * h + 2 * j + 1]), sink);
        }
      }
    }
  }
};

struct Q4_K {
  static constexpr int64_t block_size = 256, block_bytes = 144;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const float d = half_at(b), dmin = half_at(b + 2);
      for (int j = 0; j < 4; ++j) {
        const __m256i q = load32(b + 16 + 32 * j);
        int sc, m;
        scale_min_k4(2 * j, b + 4, sc, m);
        const float d1 = d * float(sc), m1 = dmin * float(m);
        scale_min_k4(2 * j + 1, b + 4, sc, m);
        const float d2 = d * float(sc), m2 = dmin * float(m);
        scaled32_minus(bits32(q, 0, 0x0F), d1, m1, d1, m1, sink);
        scaled32_minus(bits32(q, 4, 0x0F), d2, m2, d2, m2, sink);
      }
    }
  }
};

struct Q5_K {
  static constexpr int64_t block_size = 256, block_bytes = 176;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const float d = half_at(b), dmin = half_at(b + 2);
      const __m256i qh = load32(b + 16);
      for (int j = 0; j < 4; ++j) {
        const __m256i ql = load32(b + 48 + 32 * j);
        int sc, m;
        scale_min_k4(2 * j, b + 4, sc, m);
        const float d1 = d * float(sc), m1 = dmin * float(m);
        scale_min_k4(2 * j + 1, b + 4, sc, m);
        const float d2 = d * float(sc), m2 = dmin * float(m);
        const __m256i lo = _mm256_add_epi8(bits32(ql, 0, 0x0F), _mm256_slli_epi16(bits32(qh, 2 * j, 1), 4));
        const __m256i hi = _mm256_add_epi8(bits32(ql, 4, 0x0F), _mm256_slli_epi16(bits32(qh, 2 * j + 1, 1), 4));
        scaled32_minus(lo, d1, m1, d1, m1, sink);
        scaled32_minus(hi, d2, m2, d2, m2, sink);
      }
    }
  }
};

// Q6_K: in half h, value 32 p + k takes nibble p / 2 of ql[k + 32 (p mod 2)], bits 2p of qh[k].
struct Q6_K {
  static constexpr int64_t block_size = 256, block_bytes = 210;
  template <class Sink>
  HS_AVX2_INLINE static void decode(const uint8_t* b, int64_t nb, Sink& sink) {
    for (int64_t i = 0; i < nb; ++i, b += block_bytes) {
      const float d = half_at(b + 208);
      const auto* sc = reinterpret_cast<const int8_t*>(b + 192);
      for (int h = 0; h < 2; ++h) {
        const __m256i qh = load32(b + 128 + 32 * h);
        for (int p = 0; p < 4; ++p) {
          const __m256i ql = load32(b + 64 * h + 32 * (p & 1));
          const __m256i q = _mm256_or_si256(bits32(ql, 4 * (p >> 1), 0x0F), _mm256_slli_epi16(bits32(qh, 2 * p, 3), 4));
          scaled32_two(_mm256_sub_epi8(q, _mm256_set1_epi8(32)), d * float(sc[8 * h + 2 * p]),
                       d * float(sc[8 * h + 2 * p + 1]), sink);
        }
      }
    }
  }
};

template <class D>
HS_AVX2 void store_blocks(const uint8_t* b, float* y, int64_t nb) {
  StoreSink sink{y};
  D::decode(b, nb, sink);
}

// IEEE half to float as half_bits_to_float in ggml_types.cpp, 8 at a time.
HS_AVX2 void f16(const uint8_t* src, float* y, int64_t n) {
  const __m256i exp_adjust = _mm256_set1_epi32(0xE0 << 23), sub_bits = _mm256_set1_epi32(126 << 23);
  const __m256 scale = _mm256_set1_ps(0x1.0p-112f), half = _mm256_set1_ps(0.5f);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i)));
    const __m256i w = _mm256_slli_epi32(h, 16);
    const __m256i sign = _mm256_and_si256(w, _mm256_set1_epi32(int(0x80000000u)));
    const __m256i two_w = _mm256_add_epi32(w, w);
    const __m256 normal = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_add_epi32(_mm256_srli_epi32(two_w, 4), exp_adjust)), scale);
    const __m256 subnormal = _mm256_sub_ps(_mm256_castsi256_ps(_mm256_or_si256(_mm256_srli_epi32(two_w, 17), sub_bits)), half);
    const __m256i is_subnormal = _mm256_cmpeq_epi32(_mm256_srli_epi32(two_w, 27), _mm256_setzero_si256());
    const __m256i finite = _mm256_or_si256(sign, _mm256_blendv_epi8(_mm256_castps_si256(normal), _mm256_castps_si256(subnormal), is_subnormal));
    const __m256i special = _mm256_or_si256(_mm256_or_si256(sign, _mm256_set1_epi32(0x7F800000)),
                                            _mm256_slli_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x03FF)), 13));
    const __m256i is_special = _mm256_cmpeq_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x7C00)), _mm256_set1_epi32(0x7C00));
    _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_blendv_epi8(finite, special, is_special)));
  }
  for (; i < n; ++i) y[i] = ggml_half_to_float(uint16_t(src[2 * i] | (src[2 * i + 1] << 8)));
}

HS_AVX2 void bf16(const uint8_t* src, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i)));
    _mm256_storeu_ps(y + i, _mm256_castsi256_ps(_mm256_slli_epi32(h, 16)));
  }
  for (; i < n; ++i) {
    const uint32_t u = uint32_t(src[2 * i] | (src[2 * i + 1] << 8)) << 16;
    std::memcpy(y + i, &u, 4);
  }
}

// The fused product's sink: values k .. k + 31 of a row of W FMAed with x[t, k .. k + 31] for each
// of the T tokens, value k into sum (k / 8) mod A of 8 lanes (T x A sums within 16 ymm registers).
template <int T>
struct DotSink {
  static constexpr int A = T <= 3 ? 4 : 2;
  const float* x;
  int64_t ldx;
  __m256 acc[T][A];
  HS_AVX2_INLINE void operator()(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
    const __m256 v[4] = {v0, v1, v2, v3};
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t)
#pragma GCC unroll 4
      for (int i = 0; i < 4; ++i)
        acc[t][i % A] = _mm256_fmadd_ps(v[i], _mm256_loadu_ps(x + int64_t(t) * ldx + 8 * i), acc[t][i % A]);
    x += 32;
  }
};

// Distance ahead, in bytes, of the software prefetch of W (the next rows, a few cache lines at a
// time: the hardware prefetcher alone left the one-token product below memory speed).
constexpr int64_t kPrefetchAhead = 1024;

// Rows j < n of W (row_bytes apart from w, K values each) against T rows of x: each row decoded
// block by block straight into registers (D::decode, the floats dequantize_row gives) and FMAed
// with every row of x (DotSink); the A sums of each token added at the end. One row at a time,
// in order.
template <class D, int T>
HS_AVX2 void dot_rows(const uint8_t* w, size_t row_bytes, int64_t n, int64_t K, const float* x, int64_t ldx, float* y,
                      int64_t ldy) {
  constexpr int A = DotSink<T>::A;
  const int64_t nb = K / D::block_size;
  for (int64_t j = 0; j < n; ++j, w += row_bytes) {
    for (size_t p = 0; p < row_bytes; p += 64) _mm_prefetch(reinterpret_cast<const char*>(w + kPrefetchAhead + p), _MM_HINT_T0);
    DotSink<T> sink{x, ldx, {}};
    D::decode(w, nb, sink);
#pragma GCC unroll 8
    for (int t = 0; t < T; ++t) {
      __m256 sum = sink.acc[t][0];
      for (int a = 1; a < A; ++a) sum = _mm256_add_ps(sum, sink.acc[t][a]);
      y[int64_t(t) * ldy + j] = kernel_detail::hsum256(sum);
    }
  }
}

using DotRows = void (*)(const uint8_t*, size_t, int64_t, int64_t, const float*, int64_t, float*, int64_t);

// Decoder D's store (dequantize) and fused product for 1..7 tokens.
struct Decoders {
  void (*store)(const uint8_t*, float*, int64_t) = nullptr;
  int64_t block_size = 0;
  DotRows dot[7] = {};
};

template <class D>
Decoders decoders_of() {
  return {store_blocks<D>,   D::block_size,     {dot_rows<D, 1>, dot_rows<D, 2>, dot_rows<D, 3>, dot_rows<D, 4>,
                                                 dot_rows<D, 5>, dot_rows<D, 6>, dot_rows<D, 7>}};
}

Decoders decoders(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0: return decoders_of<Q8_0>();
    case GgmlType::Q4_0: return decoders_of<Q4_0>();
    case GgmlType::Q4_1: return decoders_of<Q4_1>();
    case GgmlType::Q5_0: return decoders_of<Q5_0>();
    case GgmlType::Q5_1: return decoders_of<Q5_1>();
    case GgmlType::Q2_K: return decoders_of<Q2_K>();
    case GgmlType::Q3_K: return decoders_of<Q3_K>();
    case GgmlType::Q4_K: return decoders_of<Q4_K>();
    case GgmlType::Q5_K: return decoders_of<Q5_K>();
    case GgmlType::Q6_K: return decoders_of<Q6_K>();
    default: return {};
  }
}

// AVX2 kernels here also need F16C (the scales; every AVX2 CPU has it), and the kernels' cap
// (HEADSCOPE_KERNELS, cap_kernels) at AVX2 or above. F16C is asked once: CPUID traps to the
// hypervisor in a virtual machine (microseconds a call), and the decoders are called for every
// few rows; the cap is read on every call (it may change).
bool usable() {
  static const bool f16c = [] {
    // CPUID leaf 1, ECX bit 29 (clang's __builtin_cpu_supports does not know "f16c").
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    return (ecx & bit_F16C) != 0;
  }();
  return f16c && kernel_detail::isa() >= kernel_detail::Isa::avx2;
}
#endif

}  // namespace

bool dequantize_blocks_avx2(GgmlType type, const uint8_t* src, float* dst, int64_t nb) {
#if HS_X86_KERNELS
  if (!usable()) return false;
  if (const Decoders d = decoders(type); d.store != nullptr) {
    d.store(src, dst, nb);
    return true;
  }
  if (type == GgmlType::F16) f16(src, dst, nb);
  else if (type == GgmlType::BF16) bf16(src, dst, nb);
  else return false;
  return true;
#else
  (void)type, (void)src, (void)dst, (void)nb;
  return false;
#endif
}

bool dot_rows_avx2(GgmlType type, const uint8_t* w, size_t row_bytes, int64_t n, int64_t K, const float* x,
                   int64_t ldx, int T, float* y, int64_t ldy) {
#if HS_X86_KERNELS
  if (T < 1 || T > 7 || !usable()) return false;
  const Decoders d = decoders(type);
  if (d.store == nullptr || K % d.block_size != 0) return false;
  d.dot[T - 1](w, row_bytes, n, K, x, ldx, y, ldy);
  return true;
#else
  (void)type, (void)w, (void)row_bytes, (void)n, (void)K, (void)x, (void)ldx, (void)T, (void)y, (void)ldy;
  return false;
#endif
}

}  // namespace hs
