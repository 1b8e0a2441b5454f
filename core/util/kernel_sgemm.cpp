// The packed single-precision product (sgemm, PackedLhs, sgemm_packed_lhs): the BLIS loop nest,
// packing A and B, AVX-512 and AVX2 micro-kernels, and Eigen for the portable build.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/util/kernel_isa.h"
#include "core/util/kernel_micro.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

using namespace kernel_detail;

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

#if HS_X86_KERNELS
// Transposes 8 rows of 8 floats in registers: r[i][j] -> r[j][i].
__attribute__((target("avx2"))) inline void transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// dst[k * ld_dst + i] = src[i * ld_src + k] for i < n (rows past `valid` read as 0; n <= 8) and
// k in [0, kc): 8 x 8 blocks transposed in registers, the last kc % 8 one at a time. An exact copy.
__attribute__((target("avx2"))) void transpose_rows(const float* src, int64_t ld_src, int valid, int n, int kc,
                                                    float* dst, int64_t ld_dst) {
  const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(n), lanes);
  int k = 0;
  for (; k + 8 <= kc; k += 8) {
    __m256 r[8];
    for (int i = 0; i < 8; ++i) r[i] = i < valid ? _mm256_loadu_ps(src + int64_t(i) * ld_src + k) : _mm256_setzero_ps();
    transpose8(r);
    for (int j = 0; j < 8; ++j) {
      float* d = dst + int64_t(k + j) * ld_dst;
      // Plain stores where they fit (a masked store is slow on AMD): 8 (B's panels), 6 or 4 (A's).
      if (n == 8) {
        _mm256_storeu_ps(d, r[j]);
      } else if (n == 6 || n == 4) {
        _mm_storeu_ps(d, _mm256_castps256_ps128(r[j]));
        if (n == 6) _mm_storel_pi(reinterpret_cast<__m64*>(d + 4), _mm256_extractf128_ps(r[j], 1));
      } else {
        _mm256_maskstore_ps(d, mask, r[j]);
      }
    }
  }
  for (; k < kc; ++k)
    for (int i = 0; i < n; ++i) dst[int64_t(k) * ld_dst + i] = i < valid ? src[int64_t(i) * ld_src + k] : 0.0f;
}
#endif

// True when the packing routines may use transpose_rows (the CPU has AVX2).
bool fast_transpose() {
#if HS_X86_KERNELS
  return isa() == Isa::avx512 || isa() == Isa::avx2;
#else
  return false;
#endif
}

void pack_a(int mc, int kc, const float* A, int64_t lda, int MR, float* Ap) {
#if HS_X86_KERNELS
  if (fast_transpose()) {  // each panel of MR rows in groups of 8 rows
    for (int i0 = 0; i0 < mc; i0 += MR) {
      const int mr = std::min(MR, mc - i0);
      for (int g = 0; g < MR; g += 8)
        transpose_rows(A + int64_t(i0 + g) * lda, lda, std::max(0, mr - g), std::min(8, MR - g), kc,
                       Ap + int64_t(i0) * kc + g, MR);
    }
    return;
  }
#endif
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

// AVX2 + FMA: 6 x 16 tile, 12 accumulators in ymm registers (12 + 2 for B + 1 broadcast = 15 of
// the 16). The accumulators are named variables, not arrays: GCC 12 keeps an array of __m256 in
// memory and stores all 12 every k step, which ran the products at a third of OpenBLAS's rate.
constexpr int kMR256 = 6, kNR256 = 16;
template <bool kDirectA>
__attribute__((target("avx2,fma"))) void micro_avx2(int kc, const float* A, int64_t lda, const float* Bp, float* C,
                                                     int64_t ldc, float alpha, bool acc, int mr, int nr) {
  __m256 c00 = _mm256_setzero_ps(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256 c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  // Row i of A at k: packed A[k * 6 + i]; direct rows[i][k] (rows past mr re-read row mr - 1).
  const float* r0 = A;
  const float* r1 = A + int64_t(std::min(1, mr - 1)) * lda;
  const float* r2 = A + int64_t(std::min(2, mr - 1)) * lda;
  const float* r3 = A + int64_t(std::min(3, mr - 1)) * lda;
  const float* r4 = A + int64_t(std::min(4, mr - 1)) * lda;
  const float* r5 = A + int64_t(std::min(5, mr - 1)) * lda;
#define HS_AVX2_ROW(i)                                                                          \
  {                                                                                             \
    const __m256 a = _mm256_broadcast_ss(kDirectA ? r##i + k : A + k * kMR256 + i);            \
    c##i##0 = _mm256_fmadd_ps(a, b0, c##i##0);                                                  \
    c##i##1 = _mm256_fmadd_ps(a, b1, c##i##1);                                                  \
  }
  for (int k = 0; k < kc; ++k) {
    const __m256 b0 = _mm256_load_ps(Bp + k * kNR256), b1 = _mm256_load_ps(Bp + k * kNR256 + 8);
    HS_AVX2_ROW(0) HS_AVX2_ROW(1) HS_AVX2_ROW(2) HS_AVX2_ROW(3) HS_AVX2_ROW(4) HS_AVX2_ROW(5)
  }
#undef HS_AVX2_ROW
  const __m256 c0[kMR256] = {c00, c10, c20, c30, c40, c50}, c1[kMR256] = {c01, c11, c21, c31, c41, c51};
  const __m256 va = _mm256_set1_ps(alpha);
  if (mr == kMR256 && nr == kNR256) {
    for (int i = 0; i < kMR256; ++i) {
      float* c = C + int64_t(i) * ldc;
      __m256 v0 = _mm256_mul_ps(va, c0[i]), v1 = _mm256_mul_ps(va, c1[i]);
      if (acc) {
        v0 = _mm256_add_ps(_mm256_loadu_ps(c), v0);
        v1 = _mm256_add_ps(_mm256_loadu_ps(c + 8), v1);
      }
      _mm256_storeu_ps(c, v0);
      _mm256_storeu_ps(c + 8, v1);
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


}  // namespace

namespace kernel_detail {

// (kernel_micro.h) op(B) block [kc, nc]: from B [K, N] (rows k contiguous) or B^T with B [N, K].
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
    } else if (fast_transpose() && NR % 8 == 0) {
#if HS_X86_KERNELS
      for (int g = 0; g < NR; g += 8)
        transpose_rows(B + int64_t(j0 + g) * ldb, ldb, std::max(0, nr - g), 8, kc, panel + g, NR);
#endif
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

}  // namespace kernel_detail

namespace {

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

}  // namespace

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
}  // namespace hs
