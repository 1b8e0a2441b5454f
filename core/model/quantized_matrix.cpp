#include "core/model/quantized_matrix.h"

#include <algorithm>
#include <cstring>

#include "core/util/errors.h"
#include "core/util/kernels.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// Rows of W dequantized at a time: about 64 Ki floats (256 KiB, within a core's L2 cache),
// at least 16 rows so the packed product has work, at most 256.
int64_t block_rows_for(int64_t cols) { return std::clamp<int64_t>(65536 / std::max<int64_t>(cols, 1), 16, 256); }

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

Map QuantizedMatrix::multiply_wt(const Map& x, int threads) const {
  if (x.cols() != cols_) {
    throw InputError("x has " + std::to_string(x.cols()) + " columns; '" + tensor_->name + "' [" + std::to_string(rows_) +
                     ", " + std::to_string(cols_) + "] needs " + std::to_string(cols_));
  }
  // y: [T, rows]; block b fills columns [r0, r0 + n) from W's rows [r0, r0 + n):
  //   y[:, r0:r0+n] = x W[r0:r0+n, :]^T
  Map y(x.rows(), rows_);
  if (y.size() == 0) return y;
  const int64_t block_rows = block_rows_for(cols_);
  const int64_t blocks = (rows_ + block_rows - 1) / block_rows;
  const int workers = int(std::min<int64_t>(blocks, threads_for_work(threads, x.rows() * rows_ * cols_)));
  // F32 rows are used in place when the mapping keeps them float-aligned.
  const uint8_t* data = file_->tensor_data(*tensor_);
  const bool in_place = tensor_->type == GgmlType::F32 && reinterpret_cast<uintptr_t>(data) % alignof(float) == 0;
  parallel_for(workers, workers, [&](int worker) {
    std::vector<float> buffer(in_place ? 0 : size_t(block_rows * cols_));
    for (int64_t b = worker; b < blocks; b += workers) {
      const int64_t r0 = b * block_rows, n = std::min(block_rows, rows_ - r0);
      const float* w = nullptr;  // W[r0:r0+n, :]: [n, cols], row-major
      if (in_place) {
        w = reinterpret_cast<const float*>(data + size_t(r0) * tensor_->row_bytes());
      } else {
        file_->dequantize_rows(*tensor_, r0, n, buffer.data());
        w = buffer.data();
      }
      sgemm(int(x.rows()), int(n), int(cols_), 1.0f, x.data(), x.cols(), w, cols_, true, y.data() + r0, y.cols());
    }
  });
  return y;
}

Vec QuantizedMatrix::row(int64_t i) const {
  check_row(i);
  Vec out(cols_);
  file_->dequantize_rows(*tensor_, i, 1, out.data());
  return out;
}

Map QuantizedMatrix::gather_rows(const std::vector<int>& ids) const {
  Map out(Eigen::Index(ids.size()), cols_);
  for (size_t t = 0; t < ids.size(); ++t) {
    check_row(ids[t]);
    file_->dequantize_rows(*tensor_, ids[t], 1, out.row(Eigen::Index(t)).data());
  }
  return out;
}

Map QuantizedMatrix::dequantize() const {
  Map out(rows_, cols_);
  file_->dequantize_rows(*tensor_, 0, rows_, out.data());
  return out;
}

Map matmul_wt(const Map& x, const QuantizedMatrix& w, int threads) { return w.multiply_wt(x, threads); }

}  // namespace hs
