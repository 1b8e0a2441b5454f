#include "core/model/quantized_matrix.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>

#include "core/model/argmax_block.h"
#include "core/model/quantized_product.h"
#include "core/model/transformer_ops.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

// Rows of W per block of argmax_wt's product (the [T, block] products it scans).
constexpr int64_t kArgmaxRows = 256;

// Each worker's rows of W: contiguous, in multiples of 12 rows (whole micro-kernel tiles), the
// last worker taking what is left. Worker k gets [first, first + count).
struct RowRange {
  int64_t first, count;
};
RowRange worker_rows(int64_t rows, int workers, int k) {
  const int64_t per = (rows + workers - 1) / workers;
  const int64_t step = (per + 11) / 12 * 12;
  const int64_t first = std::min(rows, k * step);
  return {first, k == workers - 1 ? rows - first : std::min(step, rows - first)};
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

EncodedRows QuantizedMatrix::encoded() const {
  EncodedRows w;
  w.type = tensor_->type;
  w.row_bytes = tensor_->row_bytes();
  w.data = file_->tensor_data(*tensor_) + size_t(first_row_) * w.row_bytes;
  w.rows = rows_;
  w.cols = cols_;
  return w;
}

Map QuantizedMatrix::multiply_wt(const Map& x, int threads) const {
  check_x(x);
  // y: [T, rows]; worker k fills columns [first, first + count) from W's rows of the same indices:
  //   y[:, first:first+count] = x W[first:first+count, :]^T
  Map y(x.rows(), rows_);
  if (y.size() == 0) return y;
  const EncodedRows w = encoded();
  const PackedTokens xp(x);  // x, packed once for every row of W
  const int workers = int(std::min<int64_t>((rows_ + 47) / 48, threads_for_work(threads, x.rows() * rows_ * cols_)));
  parallel_for(workers, workers, [&](int k) {
    const RowRange r = worker_rows(rows_, workers, k);
    encoded_product(w, r.first, r.count, xp, y.data() + r.first, y.cols());
  });
  return y;
}

std::vector<int> QuantizedMatrix::argmax_wt(const Map& x, float cap, int threads) const {
  check_x(x);
  const Eigen::Index T = x.rows();
  std::vector<int> out(size_t(T), 0);
  if (T == 0) return out;
  const EncodedRows w = encoded();
  const PackedTokens xp(x);  // x, packed once
  const int workers = int(std::min<int64_t>((rows_ + 47) / 48, threads_for_work(threads, T * rows_ * cols_)));
  // Each worker takes a contiguous range of rows in increasing blocks and keeps, per row of x, the
  // best value and its index (strictly greater replaces: ties keep the lower index).
  std::vector<std::vector<ArgmaxState>> best(size_t(workers), std::vector<ArgmaxState>(static_cast<size_t>(T)));
  parallel_for(workers, workers, [&](int worker) {
    const RowRange range = worker_rows(rows_, workers, worker);
    Map y(T, kArgmaxRows);  // [T, n]: x W[r0:r0+n, :]^T
    std::vector<ArgmaxState>& state = best[size_t(worker)];
    for (int64_t r0 = range.first; r0 < range.first + range.count; r0 += kArgmaxRows) {
      const int64_t n = std::min(kArgmaxRows, range.first + range.count - r0);
      encoded_product(w, r0, n, xp, y.data(), y.cols());
      for (Eigen::Index t = 0; t < T; ++t) {
        float* row = y.data() + t * y.cols();
        if (cap > 0.0f)
          for (int64_t j = 0; j < n; ++j) row[j] = soft_cap(row[j], cap);
        argmax_block(row, n, r0, state[size_t(t)]);  // as testing row[0], row[1], ... in order
      }
    }
  });
  for (Eigen::Index t = 0; t < T; ++t) {
    int64_t pick = -1;
    float v = 0.0f;
    for (int k = 0; k < workers; ++k) {
      const int64_t i = best[size_t(k)][size_t(t)].index;
      const float bv = best[size_t(k)][size_t(t)].value;
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
