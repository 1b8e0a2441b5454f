#pragma once
// The engine's hot loops, vectorised for the CPU the program runs on: a packed single-precision
// matrix product and a row-wise softmax. The default build stays portable (x86-64 baseline):
// AVX-512 and AVX2+FMA versions are compiled with per-function target attributes and picked at
// run time; elsewhere (or with cap_kernels("portable")) Eigen and std::exp do the work.
#include <cstdint>
#include <memory>
#include <string>

namespace hs {

// C = alpha * A op(B), or C += alpha * A op(B) with `accumulate`. Row-major, with leading
// dimensions (distance between rows): A [M, K] (lda), C [M, N] (ldc),
// B [K, N] (ldb) or, with `b_transposed`, B [N, K] (ldb) so that op(B) = B^T.
// `threads` (> 1) splits the columns of C between up to that many threads, each given at least
// 2^21 multiply-adds (a smaller product runs on the caller's thread). No aliasing between C and A or B.
void sgemm(int M, int N, int K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
           bool b_transposed, float* C, int64_t ldc, bool accumulate = false, int threads = 1);

// C [M, N] = A op(B) for a few rows of A (one new token, a handful of them): op(B) as in sgemm,
// no alpha, no accumulation. Below kFewRowsMax rows a product is memory-bound on B (a weight of
// K x N floats read for a few multiply-adds each), so each entry of B is read once per kFewRowsMax
// rows of A, with no packing: B [K, N] streams k-major into M rows of C held in L1; B^T (B [N, K])
// gives M x (a few) dot products at a time. Any M works (blocks of kFewRowsMax rows). One thread:
// a second one does not make GPT-2 small's one-row products faster on 2 cores (memory-bound).
constexpr int kFewRowsMax = 8;
void sgemm_few_rows(int M, int N, int K, const float* A, int64_t lda, const float* B, int64_t ldb, bool b_transposed,
                    float* C, int64_t ldc);

// A left operand A [M, K] packed once, as the micro-kernels read it, for many products with
// different right operands (the blocks of rows of a compact weight, each dequantized in turn and
// multiplied by the same activations): packing A for every block cost as much as the products.
// Keeps a pointer to A for the portable path: A must outlive it.
class PackedLhs {
 public:
  PackedLhs(int M, int K, const float* A, int64_t lda);
  int rows() const { return M_; }
  int depth() const { return K_; }

 private:
  friend void sgemm_packed_lhs(const PackedLhs& A, int N, const float* B, int64_t ldb, bool b_transposed, float* C,
                               int64_t ldc);
  int M_ = 0, K_ = 0;
  int MR_ = 0;  // rows per panel; 0: no micro-kernel here (the portable path reads A itself)
  const float* A_ = nullptr;
  int64_t lda_ = 0;
  // For each depth block of kc (<= 256) columns starting at pc: the rows in panels of MR, panel p
  // at (pc * Mpad + p * MR * kc), k-major inside (Mpad: M rounded up to MR; rows past M are 0).
  std::unique_ptr<float[]> data_;
};

// C [M, N] = A op(B) for an A packed in advance (no alpha, no accumulation), on the calling
// thread; op(B) as in sgemm. Each entry is summed in the same order whatever N and the blocks of
// B are, so a product split into blocks of B's rows gives the same bits as one call.
void sgemm_packed_lhs(const PackedLhs& A, int N, const float* B, int64_t ldb, bool b_transposed, float* C, int64_t ldc);

// Row-wise numerically stable softmax in place over `rows` rows of `cols` floats (ld apart):
// A_ij = exp(S_ij - max_j S_ij) / sum_j exp(S_ij - max_j S_ij). Entries equal to -inf come out
// exactly 0; every row needs one finite entry. exp is within 1e-6 relative of std::exp for
// results in float's normal range (results below 1.2e-38 may be flushed to 0).
// With `entropy` (rows floats), also entropy[i] = -sum_j A_ij log A_ij of each row in nats, from
// the same pass (log Z - sum_j e_j (S_ij - max) / Z), -inf entries contributing 0.
void softmax_rows(float* s, int rows, int cols, int64_t ld, float* entropy = nullptr);

// exp of n floats into out (in == out allowed), as softmax_rows computes it (for tests).
void exp_floats(const float* in, float* out, int64_t n);

// The instruction set the kernels run with here: "avx512", "avx2" or "portable".
// cap_kernels may lower it (for measuring and testing).
const char* kernel_isa();

// Caps the instruction set at "portable" or "avx2" ("avx512" or anything else: no cap), from the
// next kernel call on. The programs pass HEADSCOPE_KERNELS (app/common/environment.h).
void cap_kernels(const std::string& name);

}  // namespace hs
