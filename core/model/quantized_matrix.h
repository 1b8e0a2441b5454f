#pragma once
// A weight matrix W [rows, cols] (nn.Linear's layout: y = x W^T; a GGUF tensor with ne = [cols,
// rows]) kept in its GGUF encoding: the bytes stay in the memory-mapped file, so a Q4_K model
// costs about its file size instead of 4 bytes per weight. Products decode a few rows of W at a
// time into L1 inside the engine's micro-kernel loop (core/model/quantized_product.h), the rows of
// W (columns of the product) split over threads.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/formats/gguf.h"
#include "core/model/quantized_product.h"
#include "core/util/tensor.h"

namespace hs {

class QuantizedMatrix {
 public:
  // The 2-D tensor `tensor` of `file` (ne[2], ne[3] must be 1). Throws FormatError naming the
  // tensor when it is missing, not 2-D, or of a type headscope cannot dequantize.
  QuantizedMatrix(std::shared_ptr<const GgufFile> file, const std::string& tensor);
  // As above, and the shape must be [rows, cols] (FormatError naming both shapes otherwise).
  QuantizedMatrix(std::shared_ptr<const GgufFile> file, const std::string& tensor, int64_t rows, int64_t cols);

  // Rows [first, first + count) of this matrix as a matrix of their own (the rows of a fused
  // weight: Phi-3's attn_qkv is q | k | v). Rows are whole blocks, so nothing is copied.
  QuantizedMatrix row_range(int64_t first, int64_t count) const;

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  GgmlType type() const { return tensor_->type; }
  const std::string& name() const { return tensor_->name; }
  size_t bytes() const { return size_t(rows_) * tensor_->row_bytes(); }  // the encoded matrix, as mapped

  // y = x W^T: x [T, cols] -> y [T, rows]. Each block of W is decoded once per 256 rows of x
  // and multiplied by all of them. InputError when x does not have `cols` columns.
  Map multiply_wt(const Map& x, int threads = 1) const;

  // For each row t of x [T, cols]: the index of the largest entry of row t of s(x W^T), s(v) =
  // cap tanh(v / cap) when cap > 0 (else v); ties go to the lowest index. One pass over W: each
  // block of rows is dequantized once, multiplied by all T rows of x, and only each row's best
  // (value, index) is kept, never the [T, rows] product (next-token predictions over a large
  // vocabulary). Each worker of `threads` takes a contiguous range of rows. InputError when x does not have `cols` columns.
  std::vector<int> argmax_wt(const Map& x, float cap, int threads = 1) const;

  // Row i of W (an embedding lookup): [cols]. InputError when i is outside 0..rows-1.
  Vec row(int64_t i) const;
  // Rows ids[0], ids[1], ... of W (the embeddings of a token sequence): [ids.size(), cols].
  Map gather_rows(const std::vector<int>& ids) const;
  // All of W as floats [rows, cols] (for tests; defeats the point of keeping W compact).
  Map dequantize() const;

 private:
  void check_row(int64_t i) const;
  void check_x(const Map& x) const;
  // This matrix's rows as the product kernels read them.
  EncodedRows encoded() const;

  std::shared_ptr<const GgufFile> file_;
  const GgufTensor* tensor_ = nullptr;
  int64_t first_row_ = 0;  // of the tensor (row_range)
  int64_t rows_ = 0;
  int64_t cols_ = 0;
};

// x W^T for a quantized W, as matmul_wt (core/model/transformer_ops.h) does for a float W.
Map matmul_wt(const Map& x, const QuantizedMatrix& w, int threads = 1);

}  // namespace hs
