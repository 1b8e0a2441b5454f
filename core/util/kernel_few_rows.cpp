// Products with a few rows of A (sgemm_few_rows): B read once, unpacked (AVX-512, AVX2, portable).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/util/kernel_isa.h"
#include "core/util/kernels.h"

namespace hs {
namespace {

using namespace kernel_detail;

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
}  // namespace

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
}  // namespace hs
