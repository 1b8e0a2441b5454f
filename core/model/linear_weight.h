#pragma once
// The weight of one dense product y = x W^T (nn.Linear's layout, W [rows, cols]), held either as
// float32 in memory (Hugging Face folders, llama2.c checkpoints: the exact matrices the parity
// tests check) or compact in its GGUF encoding (QuantizedMatrix: the bytes stay in the mapped
// file and a block of rows is dequantized at a time). The forward passes use only this interface,
// so a GGUF model never expands its weights to float32; the float path calls the same product as
// before, bit for bit.
#include <cstdint>
#include <optional>
#include <vector>

#include "core/model/quantized_matrix.h"
#include "core/util/tensor.h"

namespace hs {

class LinearWeight {
 public:
  LinearWeight() = default;
  // Implicit on purpose: a float matrix (or an Eigen expression of one) is a weight, so loaders
  // and tests assign matrices to layer fields as before.
  LinearWeight(Map dense) : dense_(std::move(dense)) {}  // NOLINT(google-explicit-constructor)
  template <typename Derived>
  LinearWeight(const Eigen::MatrixBase<Derived>& dense) : dense_(dense) {}  // NOLINT(google-explicit-constructor)
  LinearWeight(QuantizedMatrix quantized) : quantized_(std::move(quantized)) {}  // NOLINT

  bool quantized() const { return quantized_.has_value(); }
  bool empty() const { return rows() == 0 || cols() == 0; }
  int64_t rows() const { return quantized_ ? quantized_->rows() : dense_.rows(); }
  int64_t cols() const { return quantized_ ? quantized_->cols() : dense_.cols(); }
  int64_t size() const { return rows() * cols(); }  // parameters
  // Memory the weight takes: 4 bytes per float, or the encoded bytes as mapped.
  int64_t bytes() const;
  // "F32" for a float weight, else the GGML type ("Q4_K", ...).
  const char* type_name() const;

  const Map& dense() const { return dense_; }              // valid when !quantized()
  const QuantizedMatrix& matrix() const { return *quantized_; }  // valid when quantized()

  // Rows ids[0], ids[1], ... of W (an embedding lookup): [ids.size(), cols]. Ids must be rows.
  Map gather_rows(const std::vector<int>& ids) const;

  // For each row t of x [T, cols]: the index of the largest entry of row t of s(x W^T), where
  // s(v) = cap tanh(v / cap) with a soft-cap (cap > 0) and v without; ties go to the lowest index.
  // Float weights compute the logits 64 rows at a time and take their argmax (as before); quantized
  // ones make one pass over W, each dequantized block of rows multiplied by all T rows of x, and
  // never hold the [T, rows] product.
  std::vector<int> argmax_wt(const Map& x, float cap, int threads) const;

 private:
  Map dense_;
  std::optional<QuantizedMatrix> quantized_;
};

// y = x W^T: x [T, cols] -> [T, rows], `threads` splitting the work.
Map matmul_wt(const Map& x, const LinearWeight& w, int threads = 1);

}  // namespace hs
