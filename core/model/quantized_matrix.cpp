#include "core/model/quantized_matrix.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

#include "core/model/transformer_ops.h"
#include "core/util/errors.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// Rows of W dequantized at a time: about 256 Ki floats (1 MiB), in whole multiples of 64 rows (the
// micro-kernels' column panels are 32 or 16 wide: no partly empty panel but the last), 64 to 512.
int64_t block_rows_for(int64_t cols) {
  return std::clamp<int64_t>(262144 / std::max<int64_t>(cols, 1) / 64 * 64, 64, 512);
}

// Fewer rows of x than this: one block's product is a few matrix-vector products (Eigen), which
// read the block once, instead of the packed kernel (whose tiles are 6 or 12 rows tall).
constexpr Eigen::Index kPackedMinRows = 8;

// y[:, 0:n] = x Wb^T for one dequantized block Wb [n, cols] (row-major), y row-major with leading
// dimension ldy. xp: x packed once for all blocks (only used from kPackedMinRows rows).
void block_product(const Map& x, const PackedLhs& xp, const float* wb, int64_t n, int64_t cols, float* y, int64_t ldy) {
  if (x.rows() >= kPackedMinRows) {
    sgemm_packed_lhs(xp, int(n), wb, cols, true, y, ldy);
    return;
  }
  using ConstRows = Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  using Rows = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, 0, Eigen::OuterStride<>>;
  Rows(y, x.rows(), n, Eigen::OuterStride<>(ldy)).noalias() = x * ConstRows(wb, n, cols).transpose();
}

}  // namespace

QuantizedMatrix::QuantizedMatrix(std::shared_ptr<const GgufFile> file, const std::string& tensor)
    : file_(std::move(file)), tensor_(&file_->tensor(tensor)) {
  const GgufTensor& t = *tensor_;
  for (size_t d = 2; d < t.dims.size(); ++d) {
    if (t.dims[d] != 1) {
      throw FormatError(file_->path() + ": tensor '" + t.name + "' has shape " + t.dims_text() +
                        " (ne[0] first); expected a 2-D matrix [cols, rows]");
    }
  }
  file_->require_dequantizable(t);
  cols_ = t.row_length();
  rows_ = t.rows();
  if (rows_ == 0 || cols_ == 0) {
    throw FormatError(file_->path() + ": tensor '" + t.name + "' has shape " + t.dims_text() + " (ne[0] first); a weight matrix cannot be empty");
  }
}

QuantizedMatrix::QuantizedMatrix(std::shared_ptr<const GgufFile> file, const std::string& tensor, int64_t rows, int64_t cols)
    : QuantizedMatrix(std::move(file), tensor) {
  if (rows_ != rows || cols_ != cols) {
    throw FormatError(file_->path() + ": tensor '" + tensor_->name + "' is a [" + std::to_string(rows_) + ", " +
                      std::to_string(cols_) + "] matrix (GGUF ne " + tensor_->dims_text() + "); expected [" +
                      std::to_string(rows) + ", " + std::to_string(cols) + "]");
  }
}

void QuantizedMatrix::check_row(int64_t i) const {
  if (i < 0 || i >= rows_) {
    throw InputError("row " + std::to_string(i) + " of '" + tensor_->name + "' does not exist (it has " +
                     std::to_string(rows_) + " rows)");
  }
}

QuantizedMatrix QuantizedMatrix::row_range(int64_t first, int64_t count) const {
  assert(first >= 0 && count > 0 && first + count <= rows_ && "row_range inside the matrix");
  QuantizedMatrix m = *this;
  m.first_row_ = first_row_ + first;
  m.rows_ = count;
  return m;
}

void QuantizedMatrix::check_x(const Map& x) const {
  if (x.cols() != cols_) {
    throw InputError("x has " + std::to_string(x.cols()) + " columns; '" + tensor_->name + "' [" + std::to_string(rows_) +
                     ", " + std::to_string(cols_) + "] needs " + std::to_string(cols_));
  }
}

bool QuantizedMatrix::in_place() const {
  // F32 rows are used in place when the mapping keeps them float-aligned.
  return tensor_->type == GgmlType::F32 && reinterpret_cast<uintptr_t>(file_->tensor_data(*tensor_)) % alignof(float) == 0;
}

const float* QuantizedMatrix::block(int64_t r0, int64_t n, float* buffer) const {
  if (in_place()) return reinterpret_cast<const float*>(file_->tensor_data(*tensor_) + size_t(first_row_ + r0) * tensor_->row_bytes());
  file_->dequantize_rows(*tensor_, first_row_ + r0, n, buffer);
  return buffer;
}

Map QuantizedMatrix::multiply_wt(const Map& x, int threads) const {
  check_x(x);
  // y: [T, rows]; block b fills columns [r0, r0 + n) from W's rows [r0, r0 + n):
  //   y[:, r0:r0+n] = x W[r0:r0+n, :]^T
  Map y(x.rows(), rows_);
  if (y.size() == 0) return y;
  const int64_t block_rows = block_rows_for(cols_);
  const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
  const int workers = int(std::min<int64_t>(blocks, threads_for_work(threads, x.rows() * rows_ * cols_)));
  const bool direct = in_place();
  const PackedLhs xp(x.rows() >= kPackedMinRows ? int(x.rows()) : 0, int(cols_), x.data(), x.cols());  // x, packed once
  parallel_for(workers, workers, [&](int worker) {
    const std::unique_ptr<float[]> buffer(direct ? nullptr : new float[size_t(block_rows * cols_)]);  // written before read
    for (int64_t b = worker; b < blocks; b += workers) {
      const int64_t r0 = b * block_rows, n = std::min(block_rows, rows_ - r0);
      const float* w = block(r0, n, buffer.get());  // W[r0:r0+n, :]: [n, cols], row-major
      block_product(x, xp, w, n, cols_, y.data() + r0, y.cols());
    }
  });
  return y;
}

std::vector<int> QuantizedMatrix::argmax_wt(const Map& x, float cap, int threads) const {
  check_x(x);
  const Eigen::Index T = x.rows();
  std::vector<int> out(size_t(T), 0);
  if (T == 0) return out;
  const int64_t block_rows = block_rows_for(cols_);
  const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
  const int workers = int(std::min<int64_t>(blocks, threads_for_work(threads, T * rows_ * cols_)));
  const bool direct = in_place();
  const PackedLhs xp(T >= kPackedMinRows ? int(T) : 0, int(cols_), x.data(), x.cols());  // x, packed once
  // Each worker takes blocks b = worker, worker + workers, ... in increasing order and keeps, per
  // row of x, the best value and its index (strictly greater replaces: ties keep the lower index).
  std::vector<std::vector<float>> best(size_t(workers), std::vector<float>(size_t(T), -std::numeric_limits<float>::infinity()));
  std::vector<std::vector<int64_t>> where(size_t(workers), std::vector<int64_t>(size_t(T), -1));
  parallel_for(workers, workers, [&](int worker) {
    const std::unique_ptr<float[]> buffer(direct ? nullptr : new float[size_t(block_rows * cols_)]);  // written before read
    Map y(T, block_rows);  // [T, n]: x W[r0:r0+n, :]^T
    std::vector<float>& value = best[size_t(worker)];
    std::vector<int64_t>& index = where[size_t(worker)];
    for (int64_t b = worker; b < blocks; b += workers) {
      const int64_t r0 = b * block_rows, n = std::min(block_rows, rows_ - r0);
      const float* w = block(r0, n, buffer.get());
      block_product(x, xp, w, n, cols_, y.data(), y.cols());
      for (Eigen::Index t = 0; t < T; ++t) {
        const float* row = y.data() + t * y.cols();
        for (int64_t j = 0; j < n; ++j) {
          const float v = cap > 0.0f ? soft_cap(row[j], cap) : row[j];
          if (v > value[size_t(t)] || index[size_t(t)] < 0) {
            value[size_t(t)] = v;
            index[size_t(t)] = r0 + j;
          }
        }
      }
    }
  });
  for (Eigen::Index t = 0; t < T; ++t) {
    int64_t pick = -1;
    float v = 0.0f;
    for (int k = 0; k < workers; ++k) {
      const int64_t i = where[size_t(k)][size_t(t)];
      const float bv = best[size_t(k)][size_t(t)];
      if (i >= 0 && (pick < 0 || bv > v || (bv == v && i < pick))) {
        pick = i;
        v = bv;
      }
    }
    out[size_t(t)] = int(std::max<int64_t>(pick, 0));
  }
  return out;
}

Vec QuantizedMatrix::row(int64_t i) const {
  check_row(i);
  Vec out(cols_);
  file_->dequantize_rows(*tensor_, first_row_ + i, 1, out.data());
  return out;
}

Map QuantizedMatrix::gather_rows(const std::vector<int>& ids) const {
  Map out(Eigen::Index(ids.size()), cols_);
  for (size_t t = 0; t < ids.size(); ++t) {
    check_row(ids[t]);
    file_->dequantize_rows(*tensor_, first_row_ + ids[t], 1, out.row(Eigen::Index(t)).data());
  }
  return out;
}

Map QuantizedMatrix::dequantize() const {
  Map out(rows_, cols_);
  file_->dequantize_rows(*tensor_, first_row_, rows_, out.data());
  return out;
}

Map matmul_wt(const Map& x, const QuantizedMatrix& w, int threads) { return w.multiply_wt(x, threads); }

}  // namespace hs
