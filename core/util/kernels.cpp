// Sections, in order:
//   instruction set     which one runs (the CPU's best, cap_kernels may cap it); aligned buffers
//   packed GEMM         the BLIS loop nest: packing A and B, AVX-512 and AVX2 micro-kernels,
//                       gemm_packed, and Eigen for the portable build
//   exp and softmax     Cephes' expf on AVX-512 and AVX2; softmax rows (with their entropy)
//   few rows            M <= kFewRowsMax: B read once, unpacked (AVX-512, AVX2, portable)
//   entry points        kernel_isa, sgemm, sgemm_few_rows, PackedLhs, softmax_rows, exp_floats
#include "core/util/kernels.h"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include "core/util/parallel.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#define HS_X86_KERNELS 1
#include <immintrin.h>
#else
#define HS_X86_KERNELS 0
#endif

namespace hs {
namespace {

enum class Isa { portable, avx2, avx512 };

Isa detect_isa() {
  Isa best = Isa::portable;
#if HS_X86_KERNELS
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) best = Isa::avx2;
  if (best == Isa::avx2 && __builtin_cpu_supports("avx512f")) best = Isa::avx512;
#endif
  return best;
}

// The cap set by cap_kernels (the programs pass HEADSCOPE_KERNELS): avx512 caps nothing.
std::atomic<Isa> g_cap{Isa::avx512};

Isa isa() {
  static const Isa detected = detect_isa();
  return std::min(detected, g_cap.load(std::memory_order_relaxed));
}

// Float buffers aligned to 64 bytes for packed panels.
struct AlignedFree {
  void operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }
};
using Buffer = std::unique_ptr<float[], AlignedFree>;
Buffer make_buffer(size_t n) {
  return Buffer(static_cast<float*>(::operator new[](n * sizeof(float), std::align_val_t(64))));
}

// ---------------------------------------------------------------------------------------
// Packed GEMM (the BLIS loop nest). For a block of kc depth:
//   Bp: op(B)[pc:pc+kc, jc:jc+nc] as panels of NR columns, each panel k-major: Bp[k * NR + j]
//   Ap: A[ic:ic+mc, pc:pc+kc]     as panels of MR rows,    each panel k-major: Ap[k * MR + i]
// (rows/columns past the edge are zero), then an MR x NR register tile of C per (panel, panel):
//   C_tile (+)= alpha * sum_k Ap[k, :]^T Bp[k, :]
// The B panel (kc x NR) stays in L1 while the A panels stream from L2.
constexpr int kKC = 256;  // depth of one packed block
constexpr int kMC = 192;  // rows of A packed at once (a multiple of every MR)
constexpr int kNC = 1536; // columns of B packed at once (a multiple of every NR)

void pack_a(int mc, int kc, const float* A, int64_t lda, int MR, float* Ap) {
  for (int i0 = 0; i0 < mc; i0 += MR) {
    const int mr = std::min(MR, mc - i0);
    for (int k = 0; k < kc; ++k) {
      float* dst = Ap + int64_t(i0) * kc + int64_t(k) * MR;
      int i = 0;
      for (; i < mr; ++i) dst[i] = A[int64_t(i0 + i) * lda + k];
      for (; i < MR; ++i) dst[i] = 0.0f;
    }
  }
}

// op(B) block [kc, nc]: from B [K, N] (rows k contiguous) or B^T with B [N, K].
void pack_b(int kc, int nc, const float* B, int64_t ldb, bool b_transposed, int NR, float* Bp) {
  for (int j0 = 0; j0 < nc; j0 += NR) {
    const int nr = std::min(NR, nc - j0);
    float* panel = Bp + int64_t(j0) * kc;
    if (!b_transposed) {
      for (int k = 0; k < kc; ++k) {
        const float* src = B + int64_t(k) * ldb + j0;
        float* dst = panel + int64_t(k) * NR;
        std::memcpy(dst, src, sizeof(float) * size_t(nr));
        for (int j = nr; j < NR; ++j) dst[j] = 0.0f;
      }
    } else {
      for (int j = 0; j < nr; ++j) {
        const float* src = B + int64_t(j0 + j) * ldb;
        for (int k = 0; k < kc; ++k) panel[int64_t(k) * NR + j] = src[k];
      }
      for (int j = nr; j < NR; ++j)
        for (int k = 0; k < kc; ++k) panel[int64_t(k) * NR + j] = 0.0f;
    }
  }
}

// Writes an MR x NR tile held in `tile` (row-major, NR wide) into C for the valid part.
void store_edge(const float* tile, int NR, int mr, int nr, float alpha, bool acc, float* C, int64_t ldc) {
  for (int i = 0; i < mr; ++i)
    for (int j = 0; j < nr; ++j) {
      const float v = alpha * tile[i * NR + j];
      C[int64_t(i) * ldc + j] = acc ? C[int64_t(i) * ldc + j] + v : v;
    }
}

// A micro-kernel reads A either packed (Ap[k * MR + i], `lda` unused) or, when C has so few
// columns that packing A would cost as much as the product (A v with v [T, d_head]), straight
// from row-major A (A[i * lda + k]); rows past the edge then re-read the last valid row.
#if HS_X86_KERNELS
// AVX-512: 12 x 32 tile, 24 accumulators in zmm registers.
constexpr int kMR512 = 12, kNR512 = 32;
template <bool kDirectA>
__attribute__((target("avx512f,avx2,fma"))) void micro_avx512(int kc, const float* A, int64_t lda, const float* Bp,
                                                               float* C, int64_t ldc, float alpha, bool acc, int mr,
                                                               int nr) {
  __m512 c0[kMR512], c1[kMR512];
  for (int i = 0; i < kMR512; ++i) c0[i] = c1[i] = _mm512_setzero_ps();
  const float* rows[kMR512];
  for (int i = 0; i < kMR512; ++i) rows[i] = A + int64_t(std::min(i, mr - 1)) * lda;
  for (int k = 0; k < kc; ++k) {
    const __m512 b0 = _mm512_load_ps(Bp + k * kNR512), b1 = _mm512_load_ps(Bp + k * kNR512 + 16);
    for (int i = 0; i < kMR512; ++i) {
      const __m512 ai = _mm512_set1_ps(kDirectA ? rows[i][k] : A[k * kMR512 + i]);
      c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
    }
  }
  const __m512 va = _mm512_set1_ps(alpha);
  if (mr == kMR512 && nr == kNR512) {
    for (int i = 0; i < kMR512; ++i) {
      float* c = C + int64_t(i) * ldc;
      __m512 r0 = _mm512_mul_ps(va, c0[i]), r1 = _mm512_mul_ps(va, c1[i]);
      if (acc) {
        r0 = _mm512_add_ps(_mm512_loadu_ps(c), r0);
        r1 = _mm512_add_ps(_mm512_loadu_ps(c + 16), r1);
      }
      _mm512_storeu_ps(c, r0);
      _mm512_storeu_ps(c + 16, r1);
    }
    return;
  }
  alignas(64) float tile[kMR512 * kNR512];
  for (int i = 0; i < kMR512; ++i) {
    _mm512_store_ps(tile + i * kNR512, c0[i]);
    _mm512_store_ps(tile + i * kNR512 + 16, c1[i]);
  }
  store_edge(tile, kNR512, mr, nr, alpha, acc, C, ldc);
}

// AVX2 + FMA: 6 x 16 tile, 12 accumulators in ymm registers.
constexpr int kMR256 = 6, kNR256 = 16;
template <bool kDirectA>
__attribute__((target("avx2,fma"))) void micro_avx2(int kc, const float* A, int64_t lda, const float* Bp, float* C,
                                                     int64_t ldc, float alpha, bool acc, int mr, int nr) {
  __m256 c0[kMR256], c1[kMR256];
  for (int i = 0; i < kMR256; ++i) c0[i] = c1[i] = _mm256_setzero_ps();
  const float* rows[kMR256];
  for (int i = 0; i < kMR256; ++i) rows[i] = A + int64_t(std::min(i, mr - 1)) * lda;
  for (int k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_load_ps(Bp + k * kNR256), b1 = _mm256_load_ps(Bp + k * kNR256 + 8);
    for (int i = 0; i < kMR256; ++i) {
      const __m256 ai = _mm256_broadcast_ss(kDirectA ? rows[i] + k : A + k * kMR256 + i);
      c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);
    }
  }
  const __m256 va = _mm256_set1_ps(alpha);
  if (mr == kMR256 && nr == kNR256) {
    for (int i = 0; i < kMR256; ++i) {
      float* c = C + int64_t(i) * ldc;
      __m256 r0 = _mm256_mul_ps(va, c0[i]), r1 = _mm256_mul_ps(va, c1[i]);
      if (acc) {
        r0 = _mm256_add_ps(_mm256_loadu_ps(c), r0);
        r1 = _mm256_add_ps(_mm256_loadu_ps(c + 8), r1);
      }
      _mm256_storeu_ps(c, r0);
      _mm256_storeu_ps(c + 8, r1);
    }
    return;
  }
  alignas(32) float tile[kMR256 * kNR256];
  for (int i = 0; i < kMR256; ++i) {
    _mm256_store_ps(tile + i * kNR256, c0[i]);
    _mm256_store_ps(tile + i * kNR256 + 8, c1[i]);
  }
  store_edge(tile, kNR256, mr, nr, alpha, acc, C, ldc);
}
#endif

// (kc, A or Ap, lda, Bp, C, ldc, alpha, accumulate, valid rows, valid columns)
using MicroKernel = void (*)(int, const float*, int64_t, const float*, float*, int64_t, float, bool, int, int);
struct Kernel {
  int MR = 0, NR = 0;
  MicroKernel packed = nullptr, direct = nullptr;
};

// Columns [n0, n1) of C, one thread.
void gemm_packed(int M, int n0, int n1, int K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                 bool bt, float* C, int64_t ldc, bool accumulate, const Kernel& kern) {
  const int MR = kern.MR, NR = kern.NR;
  const bool direct = n1 - n0 <= 2 * NR;  // A is used by at most two column panels: do not pack it
  const int kc_max = std::min(K, kKC), nc_max = std::min(n1 - n0 + NR - 1, kNC) / NR * NR;
  const int mc_max = std::min((M + MR - 1) / MR * MR, kMC);
  Buffer Bp = make_buffer(size_t(kc_max) * size_t(nc_max));
  Buffer Ap = direct ? nullptr : make_buffer(size_t(kc_max) * size_t(mc_max));
  for (int jc = n0; jc < n1; jc += nc_max) {
    const int nc = std::min(nc_max, n1 - jc);
    for (int pc = 0; pc < K; pc += kc_max) {
      const int kc = std::min(kc_max, K - pc);
      const float* Bblock = bt ? B + int64_t(jc) * ldb + pc : B + int64_t(pc) * ldb + jc;
      pack_b(kc, nc, Bblock, ldb, bt, NR, Bp.get());
      const bool acc = accumulate || pc > 0;
      for (int ic = 0; ic < M; ic += mc_max) {
        const int mc = std::min(mc_max, M - ic);
        const float* Ablock = A + int64_t(ic) * lda + pc;
        if (!direct) pack_a(mc, kc, Ablock, lda, MR, Ap.get());
        for (int jr = 0; jr < nc; jr += NR)
          for (int ir = 0; ir < mc; ir += MR) {
            float* Ct = C + int64_t(ic + ir) * ldc + jc + jr;
            const float* Bt = Bp.get() + int64_t(jr) * kc;
            const int mr = std::min(MR, mc - ir), nr = std::min(NR, nc - jr);
            if (direct) kern.direct(kc, Ablock + int64_t(ir) * lda, lda, Bt, Ct, ldc, alpha, acc, mr, nr);
            else kern.packed(kc, Ap.get() + int64_t(ir) * kc, 0, Bt, Ct, ldc, alpha, acc, mr, nr);
          }
      }
    }
  }
}

using ConstStrided = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0,
                                Eigen::OuterStride<>>;
using Strided = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;

void gemm_eigen(int M, int N, int K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, bool bt,
                float* C, int64_t ldc, bool accumulate) {
  const ConstStrided a(A, M, K, Eigen::OuterStride<>(lda));
  Strided c(C, M, N, Eigen::OuterStride<>(ldc));
  if (bt) {
    const ConstStrided b(B, N, K, Eigen::OuterStride<>(ldb));
    if (accumulate) c.noalias() += alpha * (a * b.transpose());
    else c.noalias() = alpha * (a * b.transpose());
  } else {
    const ConstStrided b(B, K, N, Eigen::OuterStride<>(ldb));
    if (accumulate) c.noalias() += alpha * (a * b);
    else c.noalias() = alpha * (a * b);
  }
}

// ---------------------------------------------------------------------------------------
// exp for the softmax (Cephes' expf): exp(x) = 2^n exp(r), n = round(x log2(e)),
// r = x - n ln2 (ln2 split in two so r is exact), exp(r) by a degree-6 polynomial on
// |r| <= ln2 / 2. Relative error ~2 ulp; x below -87.3 (results under float's normal range)
// gives 0, and -inf gives exactly 0.
constexpr float kExpHi = 88.3762626647949f, kExpLo = -87.3365447505531f;
constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
constexpr float kP0 = 1.9875691500e-4f, kP1 = 1.3981999507e-3f, kP2 = 8.3334519073e-3f, kP3 = 4.1665795894e-2f,
                kP4 = 1.6666665459e-1f, kP5 = 5.0000001201e-1f;

#if HS_X86_KERNELS
// GCC 12's plain AVX-512 intrinsics (max, min, roundscale, scalef, reduce) start from
// _mm512_undefined_ps and trip -Wmaybe-uninitialized; the zero-masked forms do not.
constexpr __mmask16 kAll16 = 0xFFFF;
__attribute__((target("avx512f"))) inline __m512 max512(__m512 a, __m512 b) { return _mm512_maskz_max_ps(kAll16, a, b); }
__attribute__((target("avx512f"))) inline __m512 min512(__m512 a, __m512 b) { return _mm512_maskz_min_ps(kAll16, a, b); }
__attribute__((target("avx512f"))) inline float reduce512(__m512 v, bool take_max) {
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, v);
  float r = lanes[0];
  for (int i = 1; i < 16; ++i) r = take_max ? std::max(r, lanes[i]) : r + lanes[i];
  return r;
}

__attribute__((target("avx512f,avx2,fma"))) inline __m512 exp512(__m512 x) {
  const __mmask16 nan = _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);  // stays NaN (as exp256)
  const __mmask16 tiny = _mm512_cmp_ps_mask(x, _mm512_set1_ps(kExpLo), _CMP_LT_OQ);
  x = min512(max512(x, _mm512_set1_ps(kExpLo)), _mm512_set1_ps(kExpHi));
  const __m512 n = _mm512_maskz_roundscale_ps(kAll16, _mm512_mul_ps(x, _mm512_set1_ps(kLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Lo), r);
  __m512 p = _mm512_set1_ps(kP0);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP1));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP2));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP3));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP4));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kP5));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __m512 e = _mm512_maskz_scalef_ps(kAll16, p, n);  // p * 2^n
  return _mm512_mask_blend_ps(nan, _mm512_mask_blend_ps(tiny, e, _mm512_setzero_ps()),
                              _mm512_set1_ps(std::numeric_limits<float>::quiet_NaN()));
}

__attribute__((target("avx2,fma"))) inline __m256 exp256(__m256 x) {
  // NaN stays NaN (max/min would turn it into the clamp bound, and an overflowed score row into a
  // uniform one that no check could tell from a real result): all ones in its lanes at the end.
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  const __m256 tiny = _mm256_cmp_ps(x, _mm256_set1_ps(kExpLo), _CMP_LT_OQ);
  x = _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(kExpLo)), _mm256_set1_ps(kExpHi));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Lo), r);
  __m256 p = _mm256_set1_ps(kP0);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP1));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP2));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP3));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP4));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kP5));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  // 2^n through the exponent bits: n is in [-126, 128] after the clamp; 2^128 is split in two.
  const __m256i ni = _mm256_cvtps_epi32(n);
  const __m256i half = _mm256_srai_epi32(ni, 1);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(half, _mm256_set1_epi32(127)), 23));
  const __m256 s2 = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_sub_epi32(ni, half), _mm256_set1_epi32(127)), 23));
  const __m256 e = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  return _mm256_or_ps(_mm256_andnot_ps(tiny, e), nan);
}

__attribute__((target("avx512f,avx2,fma"))) void softmax_avx512(float* s, int rows, int cols, int64_t ld, float* entropy) {
  const int vec_end = cols / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols - vec_end)) - 1u);
  const __m512 neg_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    __m512 vmax = neg_inf;
    for (int j = 0; j < vec_end; j += 16) vmax = max512(vmax, _mm512_loadu_ps(row + j));
    if (tail) vmax = max512(vmax, _mm512_mask_loadu_ps(neg_inf, tail, row + vec_end));
    const __m512 m = _mm512_set1_ps(reduce512(vmax, true));
    __m512 vsum = _mm512_setzero_ps(), vxe = _mm512_setzero_ps();  // sum e, sum e (s - max)
    const __m512 zero = _mm512_setzero_ps();
    for (int j = 0; j < vec_end; j += 16) {
      const __m512 x = _mm512_sub_ps(_mm512_loadu_ps(row + j), m);
      const __m512 e = exp512(x);
      _mm512_storeu_ps(row + j, e);
      vsum = _mm512_add_ps(vsum, e);
      vxe = _mm512_mask3_fmadd_ps(e, x, vxe, _mm512_cmp_ps_mask(e, zero, _CMP_NEQ_OQ));  // -inf: e = 0, skipped
    }
    if (tail) {
      const __m512 x = _mm512_sub_ps(_mm512_mask_loadu_ps(neg_inf, tail, row + vec_end), m);
      const __m512 e = exp512(x);
      _mm512_mask_storeu_ps(row + vec_end, tail, e);
      vsum = _mm512_add_ps(vsum, e);
      vxe = _mm512_mask3_fmadd_ps(e, x, vxe, _mm512_cmp_ps_mask(e, zero, _CMP_NEQ_OQ));
    }
    const float sum = reduce512(vsum, false);
    if (entropy) entropy[i] = std::log(sum) - reduce512(vxe, false) / sum;
    const __m512 inv = _mm512_set1_ps(1.0f / sum);
    for (int j = 0; j < vec_end; j += 16) _mm512_storeu_ps(row + j, _mm512_mul_ps(_mm512_loadu_ps(row + j), inv));
    if (tail) _mm512_mask_storeu_ps(row + vec_end, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, row + vec_end), inv));
  }
}

__attribute__((target("avx2,fma"))) inline float hmax256(__m256 v) {
  __m128 x = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_max_ps(x, _mm_movehl_ps(x, x));
  x = _mm_max_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

__attribute__((target("avx2,fma"))) inline float hsum256(__m256 v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

__attribute__((target("avx2,fma"))) void softmax_avx2(float* s, int rows, int cols, int64_t ld, float* entropy) {
  const int vec_end = cols / 8 * 8;
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    __m256 vmax = _mm256_set1_ps(-std::numeric_limits<float>::infinity());
    for (int j = 0; j < vec_end; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(row + j));
    float mx = hmax256(vmax);
    for (int j = vec_end; j < cols; ++j) mx = std::max(mx, row[j]);
    const __m256 m = _mm256_set1_ps(mx);
    __m256 vsum = _mm256_setzero_ps(), vxe = _mm256_setzero_ps();  // sum e, sum e (s - max)
    for (int j = 0; j < vec_end; j += 8) {
      const __m256 x = _mm256_sub_ps(_mm256_loadu_ps(row + j), m);
      const __m256 e = exp256(x);
      _mm256_storeu_ps(row + j, e);
      vsum = _mm256_add_ps(vsum, e);
      const __m256 live = _mm256_cmp_ps(e, _mm256_setzero_ps(), _CMP_NEQ_OQ);  // -inf: e = 0, skipped
      vxe = _mm256_add_ps(vxe, _mm256_and_ps(live, _mm256_mul_ps(e, x)));
    }
    float sum = hsum256(vsum), xe = hsum256(vxe);
    if (vec_end < cols) {
      alignas(32) float buf[8], arg[8];
      for (int j = 0; j < 8; ++j) arg[j] = buf[j] = vec_end + j < cols ? row[vec_end + j] - mx : -std::numeric_limits<float>::infinity();
      _mm256_store_ps(buf, exp256(_mm256_load_ps(buf)));
      for (int j = vec_end; j < cols; ++j) {
        row[j] = buf[j - vec_end];
        sum += row[j];
        if (row[j] != 0.0f) xe += row[j] * arg[j - vec_end];
      }
    }
    if (entropy) entropy[i] = std::log(sum) - xe / sum;
    const float inv = 1.0f / sum;
    const __m256 vinv = _mm256_set1_ps(inv);
    for (int j = 0; j < vec_end; j += 8) _mm256_storeu_ps(row + j, _mm256_mul_ps(_mm256_loadu_ps(row + j), vinv));
    for (int j = vec_end; j < cols; ++j) row[j] *= inv;
  }
}

__attribute__((target("avx512f,avx2,fma"))) void exp_avx512(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, exp512(_mm512_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = _mm512_cvtss_f32(exp512(_mm512_set1_ps(in[i])));
}

__attribute__((target("avx2,fma"))) void exp_avx2(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, exp256(_mm256_loadu_ps(in + i)));
  for (; i < n; ++i) out[i] = _mm256_cvtss_f32(exp256(_mm256_set1_ps(in[i])));
}
#endif

// The micro-kernel of the instruction set in use; an empty Kernel (packed == nullptr) when there is
// none (portable: Eigen does the products).
Kernel current_kernel() {
  Kernel kern;
#if HS_X86_KERNELS
  if (isa() == Isa::avx512) kern = {kMR512, kNR512, micro_avx512<false>, micro_avx512<true>};
  else if (isa() == Isa::avx2) kern = {kMR256, kNR256, micro_avx2<false>, micro_avx2<true>};
#endif
  return kern;
}

// ---------------------------------------------------------------------------------------
// Few rows (M <= kFewRowsMax): memory-bound on B, so B is read once, unpacked.
//   B [K, N]: for a chunk of kFewColumns columns, C[:, chunk] stays in L1 while kFewDepth rows of
//             B at a time stream past: C[r, j] += sum_kk A[r, k + kk] B[k + kk, j].
//   B [N, K]: JB rows of B at a time, M x JB dot products over k, vectorised along k and
//             summed across lanes at the end: C[r, j] = sum_k A[r, k] B[j, k].
constexpr int kFewColumns = 512;  // M x 2 KB of C
constexpr int kFewDepth = 16;     // (8: 25% slower for GPT-2 small's layers; 32, 64 no faster)

#if HS_X86_KERNELS
__attribute__((target("avx512f,avx2,fma"))) inline float hsum512(__m512 v) {
  // (the zero-masked extracts: the plain ones trip GCC 12's -Wuninitialized, as max512's comment says)
  const __m256 lo = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(v), 0));
  const __m256 hi = _mm256_castpd_ps(_mm512_maskz_extractf64x4_pd(0xFF, _mm512_castps_pd(v), 1));
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(lo), _mm256_extractf128_ps(lo, 1));
  x = _mm_add_ps(x, _mm_add_ps(_mm256_castps256_ps128(hi), _mm256_extractf128_ps(hi, 1)));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
  return _mm_cvtss_f32(x);
}

template <int M>
__attribute__((target("avx512f,avx2,fma"))) void few_rows_avx512(int N, int K, const float* A, int64_t lda,
                                                                  const float* B, int64_t ldb, float* C, int64_t ldc) {
  for (int jc = 0; jc < N; jc += kFewColumns) {
    const int jend = std::min(N, jc + kFewColumns);
    for (int k0 = 0; k0 < K; k0 += kFewDepth) {
      const int kb = std::min(kFewDepth, K - k0);
      float a[kFewDepth][M];  // A[:, k0 .. k0 + kb), broadcast from memory by the fmas
      for (int kk = 0; kk < kb; ++kk)
        for (int r = 0; r < M; ++r) a[kk][r] = A[int64_t(r) * lda + k0 + kk];
      for (int j = jc; j < jend; j += 16) {
        const __mmask16 mask = j + 16 <= jend ? __mmask16(0xFFFF) : __mmask16((1u << (jend - j)) - 1u);
        __m512 acc[M];
        for (int r = 0; r < M; ++r)
          acc[r] = k0 == 0 ? _mm512_setzero_ps() : _mm512_maskz_loadu_ps(mask, C + int64_t(r) * ldc + j);
        for (int kk = 0; kk < kb; ++kk) {
          const __m512 b = _mm512_maskz_loadu_ps(mask, B + int64_t(k0 + kk) * ldb + j);
          for (int r = 0; r < M; ++r) acc[r] = _mm512_fmadd_ps(_mm512_set1_ps(a[kk][r]), b, acc[r]);
        }
        for (int r = 0; r < M; ++r) _mm512_mask_storeu_ps(C + int64_t(r) * ldc + j, mask, acc[r]);
      }
    }
  }
}

template <int M, int JB>
__attribute__((target("avx512f,avx2,fma"))) inline void dots_avx512(int K, const float* A, int64_t lda, const float* B,
                                                                     int64_t ldb, float* C, int64_t ldc) {
  __m512 acc[M][JB];
  for (int r = 0; r < M; ++r)
    for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm512_setzero_ps();
  const int kv = K / 16 * 16;
  for (int k = 0; k < kv; k += 16) {
    __m512 b[JB];
    for (int jj = 0; jj < JB; ++jj) b[jj] = _mm512_loadu_ps(B + int64_t(jj) * ldb + k);
    for (int r = 0; r < M; ++r) {
      const __m512 a = _mm512_loadu_ps(A + int64_t(r) * lda + k);
      for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm512_fmadd_ps(a, b[jj], acc[r][jj]);
    }
  }
  if (kv < K) {
    const __mmask16 tail = __mmask16((1u << (K - kv)) - 1u);
    __m512 b[JB];
    for (int jj = 0; jj < JB; ++jj) b[jj] = _mm512_maskz_loadu_ps(tail, B + int64_t(jj) * ldb + kv);
    for (int r = 0; r < M; ++r) {
      const __m512 a = _mm512_maskz_loadu_ps(tail, A + int64_t(r) * lda + kv);
      for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm512_fmadd_ps(a, b[jj], acc[r][jj]);
    }
  }
  for (int r = 0; r < M; ++r)
    for (int jj = 0; jj < JB; ++jj) C[int64_t(r) * ldc + jj] = hsum512(acc[r][jj]);
}

// 32 zmm registers: M x JB accumulators + JB rows of B + one of A.
template <int M>
__attribute__((target("avx512f,avx2,fma"))) void few_rows_t_avx512(int N, int K, const float* A, int64_t lda,
                                                                    const float* B, int64_t ldb, float* C, int64_t ldc) {
  constexpr int JB = M <= 2 ? 8 : M <= 6 ? 4 : 2;
  int j = 0;
  for (; j + JB <= N; j += JB) dots_avx512<M, JB>(K, A, lda, B + int64_t(j) * ldb, ldb, C + j, ldc);
  for (; j < N; ++j) dots_avx512<M, 1>(K, A, lda, B + int64_t(j) * ldb, ldb, C + j, ldc);
}

// Lanes 0 .. n-1 of a ymm mask (n <= 8).
__attribute__((target("avx2,fma"))) inline __m256i lanes256(int n) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

template <int M>
__attribute__((target("avx2,fma"))) void few_rows_avx2(int N, int K, const float* A, int64_t lda, const float* B,
                                                        int64_t ldb, float* C, int64_t ldc) {
  for (int jc = 0; jc < N; jc += kFewColumns) {
    const int jend = std::min(N, jc + kFewColumns);
    for (int k0 = 0; k0 < K; k0 += kFewDepth) {
      const int kb = std::min(kFewDepth, K - k0);
      float a[kFewDepth][M];
      for (int kk = 0; kk < kb; ++kk)
        for (int r = 0; r < M; ++r) a[kk][r] = A[int64_t(r) * lda + k0 + kk];
      int j = jc;
      for (; j + 8 <= jend; j += 8) {
        __m256 acc[M];
        for (int r = 0; r < M; ++r) acc[r] = k0 == 0 ? _mm256_setzero_ps() : _mm256_loadu_ps(C + int64_t(r) * ldc + j);
        for (int kk = 0; kk < kb; ++kk) {
          const __m256 b = _mm256_loadu_ps(B + int64_t(k0 + kk) * ldb + j);
          for (int r = 0; r < M; ++r) acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(&a[kk][r]), b, acc[r]);
        }
        for (int r = 0; r < M; ++r) _mm256_storeu_ps(C + int64_t(r) * ldc + j, acc[r]);
      }
      if (j < jend) {
        const __m256i mask = lanes256(jend - j);
        __m256 acc[M];
        for (int r = 0; r < M; ++r)
          acc[r] = k0 == 0 ? _mm256_setzero_ps() : _mm256_maskload_ps(C + int64_t(r) * ldc + j, mask);
        for (int kk = 0; kk < kb; ++kk) {
          const __m256 b = _mm256_maskload_ps(B + int64_t(k0 + kk) * ldb + j, mask);
          for (int r = 0; r < M; ++r) acc[r] = _mm256_fmadd_ps(_mm256_broadcast_ss(&a[kk][r]), b, acc[r]);
        }
        for (int r = 0; r < M; ++r) _mm256_maskstore_ps(C + int64_t(r) * ldc + j, mask, acc[r]);
      }
    }
  }
}

template <int M, int JB>
__attribute__((target("avx2,fma"))) inline void dots_avx2(int K, const float* A, int64_t lda, const float* B,
                                                          int64_t ldb, float* C, int64_t ldc) {
  __m256 acc[M][JB];
  for (int r = 0; r < M; ++r)
    for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm256_setzero_ps();
  const int kv = K / 8 * 8;
  for (int k = 0; k < kv; k += 8) {
    __m256 b[JB];
    for (int jj = 0; jj < JB; ++jj) b[jj] = _mm256_loadu_ps(B + int64_t(jj) * ldb + k);
    for (int r = 0; r < M; ++r) {
      const __m256 a = _mm256_loadu_ps(A + int64_t(r) * lda + k);
      for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm256_fmadd_ps(a, b[jj], acc[r][jj]);
    }
  }
  if (kv < K) {
    const __m256i tail = lanes256(K - kv);
    __m256 b[JB];
    for (int jj = 0; jj < JB; ++jj) b[jj] = _mm256_maskload_ps(B + int64_t(jj) * ldb + kv, tail);
    for (int r = 0; r < M; ++r) {
      const __m256 a = _mm256_maskload_ps(A + int64_t(r) * lda + kv, tail);
      for (int jj = 0; jj < JB; ++jj) acc[r][jj] = _mm256_fmadd_ps(a, b[jj], acc[r][jj]);
    }
  }
  for (int r = 0; r < M; ++r)
    for (int jj = 0; jj < JB; ++jj) C[int64_t(r) * ldc + jj] = hsum256(acc[r][jj]);
}

// 16 ymm registers: M x JB accumulators + JB rows of B + one of A.
template <int M>
__attribute__((target("avx2,fma"))) void few_rows_t_avx2(int N, int K, const float* A, int64_t lda, const float* B,
                                                          int64_t ldb, float* C, int64_t ldc) {
  constexpr int JB = M <= 2 ? 4 : M <= 6 ? 2 : 1;
  int j = 0;
  for (; j + JB <= N; j += JB) dots_avx2<M, JB>(K, A, lda, B + int64_t(j) * ldb, ldb, C + j, ldc);
  for (; j < N; ++j) dots_avx2<M, 1>(K, A, lda, B + int64_t(j) * ldb, ldb, C + j, ldc);
}
#endif

void few_rows_portable(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                       int64_t ldc) {
  for (int jc = 0; jc < N; jc += kFewColumns) {
    const int nc = std::min(kFewColumns, N - jc);
    for (int r = 0; r < M; ++r) std::fill(C + int64_t(r) * ldc + jc, C + int64_t(r) * ldc + jc + nc, 0.0f);
    for (int k = 0; k < K; ++k) {
      const float* b = B + int64_t(k) * ldb + jc;
      for (int r = 0; r < M; ++r) {
        const float a = A[int64_t(r) * lda + k];
        float* c = C + int64_t(r) * ldc + jc;
        for (int j = 0; j < nc; ++j) c[j] += a * b[j];
      }
    }
  }
}

void few_rows_t_portable(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb, float* C,
                         int64_t ldc) {
  for (int j = 0; j < N; ++j) {
    const float* b = B + int64_t(j) * ldb;
    for (int r = 0; r < M; ++r) {
      const float* a = A + int64_t(r) * lda;
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += a[k] * b[k];
      C[int64_t(r) * ldc + j] = s;
    }
  }
}

// (N, K, A, lda, B, ldb, C, ldc) for a fixed number of rows.
using FewRowsKernel = void (*)(int, int, const float*, int64_t, const float*, int64_t, float*, int64_t);

template <template <int> class Pick>
FewRowsKernel pick_rows(int M) {
  switch (M) {
    case 1: return Pick<1>::f;
    case 2: return Pick<2>::f;
    case 3: return Pick<3>::f;
    case 4: return Pick<4>::f;
    case 5: return Pick<5>::f;
    case 6: return Pick<6>::f;
    case 7: return Pick<7>::f;
    default: return Pick<8>::f;
  }
}
#if HS_X86_KERNELS
template <int M> struct PickAvx512 { static constexpr FewRowsKernel f = few_rows_avx512<M>; };
template <int M> struct PickAvx512T { static constexpr FewRowsKernel f = few_rows_t_avx512<M>; };
template <int M> struct PickAvx2 { static constexpr FewRowsKernel f = few_rows_avx2<M>; };
template <int M> struct PickAvx2T { static constexpr FewRowsKernel f = few_rows_t_avx2<M>; };
#endif

// M <= kFewRowsMax rows of C.
void few_rows_block(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb, bool bt, float* C,
                    int64_t ldc) {
#if HS_X86_KERNELS
  if (isa() == Isa::avx512)
    return (bt ? pick_rows<PickAvx512T>(M) : pick_rows<PickAvx512>(M))(N, K, A, lda, B, ldb, C, ldc);
  if (isa() == Isa::avx2) return (bt ? pick_rows<PickAvx2T>(M) : pick_rows<PickAvx2>(M))(N, K, A, lda, B, ldb, C, ldc);
#endif
  if (bt) few_rows_t_portable(M, N, K, A, lda, B, ldb, C, ldc);
  else few_rows_portable(M, N, K, A, lda, B, ldb, C, ldc);
}

void softmax_portable(float* s, int rows, int cols, int64_t ld, float* entropy) {
  for (int i = 0; i < rows; ++i) {
    float* row = s + int64_t(i) * ld;
    const float m = *std::max_element(row, row + cols);
    float sum = 0.0f, xe = 0.0f;  // sum e, sum e (s - max)
    for (int j = 0; j < cols; ++j) {
      const float x = row[j] - m, e = std::exp(x);
      row[j] = e;
      sum += e;
      if (e != 0.0f) xe += e * x;
    }
    if (entropy) entropy[i] = std::log(sum) - xe / sum;
    const float inv = 1.0f / sum;
    for (int j = 0; j < cols; ++j) row[j] *= inv;
  }
}

}  // namespace

void cap_kernels(const std::string& name) {
  if (name == "portable") g_cap = Isa::portable;
  else if (name == "avx2") g_cap = Isa::avx2;
  else g_cap = Isa::avx512;
}

const char* kernel_isa() {
  switch (isa()) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    default: return "portable";
  }
}

void sgemm(int M, int N, int K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
           bool b_transposed, float* C, int64_t ldc, bool accumulate, int threads) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    if (!accumulate)
      for (int i = 0; i < M; ++i) std::fill(C + int64_t(i) * ldc, C + int64_t(i) * ldc + N, 0.0f);
    return;
  }
  const Kernel kern = current_kernel();
  const bool micro = kern.packed != nullptr;
  const int NR = kern.NR;
  // Split the columns of C into one contiguous, NR-aligned range per thread, with no more threads
  // than the work is worth: stories260K's products stay on one, GPT-2's are split.
  const int align = micro ? NR : 16;
  const int chunks = std::max(1, std::min(threads_for_work(threads, int64_t(M) * N * K), (N + align - 1) / align));
  const int per = ((N + align - 1) / align + chunks - 1) / chunks * align;
  auto run = [&](int t) {
    const int n0 = std::min(N, t * per), n1 = std::min(N, n0 + per);
    if (n0 >= n1) return;
    if (micro) {
      gemm_packed(M, n0, n1, K, alpha, A, lda, B, ldb, b_transposed, C, ldc, accumulate, kern);
    } else {
      const float* Bn = b_transposed ? B + int64_t(n0) * ldb : B + n0;
      gemm_eigen(M, n1 - n0, K, alpha, A, lda, Bn, ldb, b_transposed, C + n0, ldc, accumulate);
    }
  };
  if (chunks == 1) run(0);
  else parallel_for(chunks, chunks, run);
}

void sgemm_few_rows(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb, bool b_transposed,
                    float* C, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int i = 0; i < M; ++i) std::fill(C + int64_t(i) * ldc, C + int64_t(i) * ldc + N, 0.0f);
    return;
  }
  for (int r0 = 0; r0 < M; r0 += kFewRowsMax)
    few_rows_block(std::min(kFewRowsMax, M - r0), N, K, A + int64_t(r0) * lda, lda, B, ldb, b_transposed,
                   C + int64_t(r0) * ldc, ldc);
}

PackedLhs::PackedLhs(int M, int K, const float* A, int64_t lda) : M_(M), K_(K), A_(A), lda_(lda) {
  const Kernel kern = current_kernel();
  if (kern.packed == nullptr || M <= 0 || K <= 0) return;
  MR_ = kern.MR;
  const int64_t m_pad = (int64_t(M) + MR_ - 1) / MR_ * MR_;
  data_.reset(new float[size_t(m_pad) * size_t(K)]);  // every entry is written by pack_a
  for (int pc = 0; pc < K; pc += kKC) pack_a(M, std::min(kKC, K - pc), A + pc, lda, MR_, data_.get() + m_pad * pc);
}

void sgemm_packed_lhs(const PackedLhs& A, int N, const float* B, int64_t ldb, bool b_transposed, float* C, int64_t ldc) {
  const int M = A.M_, K = A.K_;
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {
    for (int i = 0; i < M; ++i) std::fill(C + int64_t(i) * ldc, C + int64_t(i) * ldc + N, 0.0f);
    return;
  }
  const Kernel kern = current_kernel();
  if (A.MR_ == 0 || kern.MR != A.MR_) {  // no micro-kernel: Eigen on the unpacked A
    gemm_eigen(M, N, K, 1.0f, A.A_, A.lda_, B, ldb, b_transposed, C, ldc, false);
    return;
  }
  // gemm_packed's loop nest with A's panels taken from A.data_ instead of packed per block.
  const int MR = kern.MR, NR = kern.NR;
  const int64_t m_pad = (int64_t(M) + MR - 1) / MR * MR;
  const int kc_max = std::min(K, kKC), nc_max = std::min(N + NR - 1, kNC) / NR * NR;
  const int mc_max = int(std::min<int64_t>(m_pad, kMC));
  Buffer Bp = make_buffer(size_t(kc_max) * size_t(nc_max));
  for (int jc = 0; jc < N; jc += nc_max) {
    const int nc = std::min(nc_max, N - jc);
    for (int pc = 0; pc < K; pc += kc_max) {
      const int kc = std::min(kc_max, K - pc);
      const float* Bblock = b_transposed ? B + int64_t(jc) * ldb + pc : B + int64_t(pc) * ldb + jc;
      pack_b(kc, nc, Bblock, ldb, b_transposed, NR, Bp.get());
      const float* Ap = A.data_.get() + m_pad * pc;  // [m_pad, kc] in panels of MR rows
      for (int ic = 0; ic < M; ic += mc_max) {
        const int mc = std::min(mc_max, M - ic);
        for (int jr = 0; jr < nc; jr += NR)
          for (int ir = 0; ir < mc; ir += MR) {
            float* Ct = C + int64_t(ic + ir) * ldc + jc + jr;
            const int mr = std::min(MR, mc - ir), nr = std::min(NR, nc - jr);
            kern.packed(kc, Ap + int64_t(ic + ir) * kc, 0, Bp.get() + int64_t(jr) * kc, Ct, ldc, 1.0f, pc > 0, mr, nr);
          }
      }
    }
  }
}

void softmax_rows(float* s, int rows, int cols, int64_t ld, float* entropy) {
#if HS_X86_KERNELS
  if (isa() == Isa::avx512) return softmax_avx512(s, rows, cols, ld, entropy);
  if (isa() == Isa::avx2) return softmax_avx2(s, rows, cols, ld, entropy);
#endif
  softmax_portable(s, rows, cols, ld, entropy);
}

void exp_floats(const float* in, float* out, int64_t n) {
#if HS_X86_KERNELS
  if (isa() == Isa::avx512) return exp_avx512(in, out, n);
  if (isa() == Isa::avx2) return exp_avx2(in, out, n);
#endif
  for (int64_t i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}

}  // namespace hs
