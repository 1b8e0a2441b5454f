#pragma once
// The packed product's pieces that other kernels reuse (core/model/quantized_product.cpp): the
// micro-kernel of the instruction set in use and the packing of the right operand. Not API.
#include <cstdint>

namespace hs {
namespace kernel_detail {

// C[0:mr, 0:nr] (+)= alpha * A[0:mr, 0:kc] Bp, an MR x NR register tile:
//   Bp: kc x NR floats, k-major (Bp[k * NR + j]), 64-byte aligned
//   A:  packed (Ap[k * MR + i], `lda` unused) for `packed`; row-major rows `lda` apart for
//       `direct` (rows past mr re-read row mr - 1)
// (kc, A or Ap, lda, Bp, C, ldc, alpha, accumulate, valid rows, valid columns)
using MicroKernel = void (*)(int, const float*, int64_t, const float*, float*, int64_t, float, bool, int, int);
struct Kernel {
  int MR = 0, NR = 0;
  MicroKernel packed = nullptr, direct = nullptr;
};

// The micro-kernel of the instruction set in use; an empty Kernel (packed == nullptr) when there is
// none (portable: Eigen does the products).
Kernel current_kernel();

// op(B)[0:kc, 0:nc] as panels of NR columns, each k-major (panel p at Bp + p * NR * kc, rows
// past nc zero): from B [K, N] (rows k contiguous, ldb apart) or, with b_transposed, B [N, K].
void pack_b(int kc, int nc, const float* B, int64_t ldb, bool b_transposed, int NR, float* Bp);

}  // namespace kernel_detail
}  // namespace hs
