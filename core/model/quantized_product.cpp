#include "core/model/quantized_product.h"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "core/formats/ggml_types_avx2.h"
#include "core/util/kernel_micro.h"
#include "core/util/kernels.h"

namespace hs {
namespace {

using namespace kernel_detail;

constexpr int64_t kDepth = 256;   // depth block: a K-quant block, 8 blocks of 32
constexpr int64_t kGroup = 96;    // rows of W per group (a multiple of every MR): y^T [96, tokens]
constexpr int64_t kTokens = 256;  // tokens per chunk: a depth block of x (kDepth x 256 floats) fits L2

// W[r, c0 : c0 + n] as floats: in place for aligned F32 rows, else decoded into `buffer`.
const float* decoded(const EncodedRows& w, int64_t r, int64_t c0, int64_t n, float* buffer) {
  const uint8_t* row = w.data + size_t(r) * w.row_bytes;
  if (w.type == GgmlType::F32 && reinterpret_cast<uintptr_t>(row) % alignof(float) == 0)
    return reinterpret_cast<const float*>(row) + c0;
  const GgmlTypeInfo& info = ggml_type_info(w.type);
  dequantize_row(w.type, row + size_t(c0 / info.block_size * info.block_bytes), buffer, n);
  return buffer;
}

// Rows [r0, r0 + n) of W, a few at a time (as many as fit 32 KiB of floats, at least 4 so the dot
// products have independent sums to overlap), each block dotted with every row of x.
// With AVX2, the quantized types go to dot_rows_avx2 instead (ggml_types_avx2.h): one row at a
// time, decoded block by block into registers and FMAed with every row of x at once.
void few_tokens(const EncodedRows& w, int64_t r0, int64_t n, const Map& x, float* y, int64_t ldy) {
  if (dot_rows_avx2(w.type, w.data + size_t(r0) * w.row_bytes, w.row_bytes, n, w.cols, x.data(), x.cols(),
                    int(x.rows()), y, ldy))
    return;
  const int64_t K = w.cols, per = std::clamp<int64_t>(8192 / K, 4, 16);
  std::vector<float> buffer(size_t(per * K));
  for (int64_t j = 0; j < n; j += per) {
    const int64_t m = std::min(per, n - j);
    const float* rows = nullptr;
    bool contiguous = true;
    for (int64_t i = 0; i < m; ++i) {
      const float* row = decoded(w, r0 + j + i, 0, K, buffer.data() + i * K);
      if (i == 0) rows = row;
      contiguous = contiguous && row == rows + i * K;
    }
    if (!contiguous) rows = buffer.data();  // (F32 in place is contiguous; decoded rows are in the buffer)
    sgemm_few_rows(int(x.rows()), int(m), int(K), x.data(), x.cols(), rows, K, true, y + j, ldy);
  }
}

// No micro-kernel here (portable build): blocks of `per` rows decoded and multiplied by Eigen.
// Every call has the same shape (the last block padded with zero rows): Eigen's blocking depends
// on the shape, and so would the order of the sums, and a thread's share of the rows would change
// the bits.
void eigen_blocks(const EncodedRows& w, int64_t r0, int64_t n, const Map& x, float* y, int64_t ldy) {
  const int64_t K = w.cols, per = std::max<int64_t>(16, 65536 / K);
  Map block = Map::Zero(per, K);  // W[rows, :], row-major
  Map yb(x.rows(), per);          // x block^T
  for (int64_t j = 0; j < n; j += per) {
    const int64_t m = std::min(per, n - j);
    for (int64_t i = 0; i < m; ++i) {
      float* dst = block.data() + i * K;
      const float* row = decoded(w, r0 + j + i, 0, K, dst);
      if (row != dst) std::copy(row, row + K, dst);
    }
    if (m < per) block.bottomRows(per - m).setZero();
    yb.noalias() = x * block.transpose();
    for (Eigen::Index t = 0; t < x.rows(); ++t) std::copy(yb.data() + t * per, yb.data() + t * per + m, y + t * ldy + j);
  }
}

// The micro-kernel path for tokens [t0, t0 + tn) (a multiple of NR from t0, or the last chunk):
//   for each group of kGroup rows: yt [group rows, tokens] = sum over depth blocks of
//     (MR rows of W decoded into L1) x (the block's token panels)
//   then y[t0 + t, r0 + i] = yt[i, t].
void tiled(const EncodedRows& w, int64_t r0, int64_t n, const PackedTokens& xp, int64_t t0, int64_t tn, float* y,
           int64_t ldy, const Kernel& kern) {
  const int MR = kern.MR, NR = kern.NR;
  const int64_t K = w.cols, panels = (tn + NR - 1) / NR, ldt = panels * NR;
  Buffer yt = make_buffer(size_t(kGroup * ldt));
  Buffer wbuf = make_buffer(size_t(MR * kDepth));
  std::vector<const float*> rows(static_cast<size_t>(MR));
  for (int64_t g0 = 0; g0 < n; g0 += kGroup) {
    const int64_t gn = std::min(kGroup, n - g0);
    for (int64_t pc = 0; pc < K; pc += kDepth) {
      const int64_t kc = std::min(kDepth, K - pc);
      const float* xblock = xp.block(pc) + t0 * kc;  // panels of this chunk, NR x kc each
      for (int64_t i0 = 0; i0 < gn; i0 += MR) {
        const int mr = int(std::min<int64_t>(MR, gn - i0));
        // MR rows of W at depth [pc, pc + kc), kc floats apart (F32 rows in place: their own stride).
        const float* a = nullptr;
        int64_t lda = kc;
        for (int i = 0; i < mr; ++i) rows[size_t(i)] = decoded(w, r0 + g0 + i0 + i, pc, kc, wbuf.get() + i * kc);
        if (rows[0] == wbuf.get()) {
          a = wbuf.get();
        } else {  // F32 in place
          a = rows[0];
          lda = int64_t(w.row_bytes / sizeof(float));
        }
        for (int64_t p = 0; p < panels; ++p)
          kern.direct(int(kc), a, lda, xblock + p * NR * kc, yt.get() + i0 * ldt + p * NR, ldt, 1.0f, pc > 0, mr, NR);
      }
    }
    for (int64_t t = 0; t < tn; ++t) {
      float* dst = y + (t0 + t) * ldy + g0;
      for (int64_t i = 0; i < gn; ++i) dst[i] = yt[size_t(i * ldt + t)];
    }
  }
}

}  // namespace

PackedTokens::PackedTokens(const Map& x) : x_(&x) {
  const Kernel kern = current_kernel();
  if (kern.direct == nullptr || x.rows() < kFewTokens || x.cols() == 0) return;
  nr_ = kern.NR;
  t_pad_ = (x.rows() + nr_ - 1) / nr_ * nr_;
  data_ = make_buffer(size_t(t_pad_ * x.cols()));
  for (int64_t pc = 0; pc < x.cols(); pc += kDepth) {
    const int64_t kc = std::min(kDepth, int64_t(x.cols()) - pc);
    pack_b(int(kc), int(x.rows()), x.data() + pc, x.cols(), true, nr_, data_.get() + pc * t_pad_);
  }
}

void encoded_product(const EncodedRows& w, int64_t r0, int64_t n, const PackedTokens& xp, float* y, int64_t ldy) {
  const Map& x = xp.x();
  if (n <= 0 || x.rows() == 0) return;
  if (x.rows() < kFewTokens) return few_tokens(w, r0, n, x, y, ldy);
  const Kernel kern = current_kernel();
  if (!xp.packed() || kern.direct == nullptr || kern.NR != xp.panel()) return eigen_blocks(w, r0, n, x, y, ldy);
  // Chunks of kTokens tokens (a multiple of NR), so a depth block of the chunk's panels stays in L2.
  for (int64_t t0 = 0; t0 < x.rows(); t0 += kTokens) tiled(w, r0, n, xp, t0, std::min(kTokens, int64_t(x.rows()) - t0), y, ldy, kern);
}

}  // namespace hs
