// QuantizedMatrix: a 70 x 512 matrix of every readable GGML type (random blocks written by
// tests/core/formats/make_gguf_test_files.py) multiplied block by block against the
// dequantize-everything-then-multiply result in double precision; thread counts agree bit for bit;
// rows and embedding lookups equal the dequantized rows; wrong shapes and types are FormatErrors;
// the argmax of each row of a product (next tokens) and row ranges of a fused weight.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "core/formats/ggml_types_avx2.h"
#include "core/model/quantized_matrix.h"
#include "core/model/transformer_ops.h"
#include "core/util/errors.h"
#include "core/util/kernels.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

const char* const kReadable[] = {"F32", "F16", "BF16", "Q8_0", "Q4_0", "Q4_1", "Q5_0",
                                 "Q5_1", "Q2_K", "Q3_K", "Q4_K", "Q5_K", "Q6_K"};

Map random_x(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Map x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
  return x;
}

class QuantizedMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test::gguf_test_file("matrices.gguf");
    if (path_.empty()) GTEST_SKIP() << "matrices.gguf not found in " << test::gguf_test_dir() << " (run through ctest)";
    file_ = std::make_shared<const GgufFile>(path_);
  }
  std::string path_;
  std::shared_ptr<const GgufFile> file_;
};

TEST_F(QuantizedMatrixTest, ProductEqualsDequantizedProductForEveryType) {
  // The kernels of this CPU (W decoded inside the micro-kernel loop) and the portable path.
  for (const char* isa : {"avx512", "portable"})
  for (const char* type : kReadable) {
    cap_kernels(isa);
    SCOPED_TRACE(std::string(type) + " on " + kernel_isa());
    const QuantizedMatrix w(file_, std::string("w.") + type, 70, 512);
    EXPECT_EQ(w.rows(), 70);
    EXPECT_EQ(w.cols(), 512);
    EXPECT_STREQ(ggml_type_name(w.type()), type);
    const Map dense = w.dequantize();  // [70, 512], checked against numpy in ggml_types_test
    const std::vector<float> flat = file_->dequantize(file_->tensor(std::string("w.") + type));
    ASSERT_EQ(0, std::memcmp(dense.data(), flat.data(), flat.size() * sizeof(float)));
    for (const int64_t t : {int64_t(1), int64_t(7), int64_t(37), int64_t(300)}) {  // 300: two chunks of tokens
      const Map x = random_x(t, 512, unsigned(t));  // [T, 512]
      const Map y = w.multiply_wt(x, 1);            // [T, 70]
      ASSERT_EQ(y.rows(), t);
      ASSERT_EQ(y.cols(), 70);
      // y_ij = sum_k x_ik W_jk, compared with a float64 sum; the float sum's error is bounded by
      // a few ulps of sum_k |x_ik W_jk|.
      const Eigen::MatrixXd ref = x.cast<double>() * dense.cast<double>().transpose();
      const Eigen::MatrixXd mag = x.cast<double>().cwiseAbs() * dense.cast<double>().cwiseAbs().transpose();
      double worst = 0;
      for (Eigen::Index i = 0; i < y.rows(); ++i)
        for (Eigen::Index j = 0; j < y.cols(); ++j) {
          const double err = std::fabs(double(y(i, j)) - ref(i, j));
          worst = std::max(worst, err / (mag(i, j) + 1e-30));
          ASSERT_LE(err, 2e-6 * mag(i, j) + 1e-30) << "y(" << i << ", " << j << ") = " << y(i, j) << ", float64 " << ref(i, j);
        }
      const Map y2 = matmul_wt(x, w, 2);
      EXPECT_EQ(0, std::memcmp(y.data(), y2.data(), size_t(y.size()) * sizeof(float))) << "2 threads differ from 1";
    }
  }
  cap_kernels("avx512");
}

// The one-token product (T = 1..7) with the decode fused into the dot products (AVX2,
// dot_rows_avx2): every quantized type, several row counts (1, 3, 4, 5, 70), depths of whole and
// partial 256-value chunks (288 = 256 + 32 for the 32-value types), against the dequantized
// matrix in float64; through multiply_wt too (row ranges of the 70 rows).
TEST_F(QuantizedMatrixTest, OneTokenFusedProductEqualsDequantizedProduct) {
  cap_kernels("avx512");
  const bool avx2 = kernel_isa() != std::string("portable");
  for (const char* type : kReadable) {
    SCOPED_TRACE(type);
    const QuantizedMatrix whole(file_, std::string("w.") + type, 70, 512);
    const Map dense = whole.dequantize();
    const GgufTensor& tensor = file_->tensor(std::string("w.") + type);
    const GgmlTypeInfo& info = ggml_type_info(tensor.type);
    const bool quantized = info.block_size >= 32;
    const uint8_t* data = file_->tensor_data(tensor);
    const size_t row_bytes = size_t(512 / info.block_size * info.block_bytes);
    for (int t = 1; t <= 7; ++t) {
      const Map x = random_x(t, 512, unsigned(100 + t));
      for (const int64_t depth : {int64_t(512), int64_t(256), int64_t(288)}) {
        if (depth % info.block_size != 0) continue;
        for (const int64_t n : {int64_t(1), int64_t(3), int64_t(4), int64_t(5), int64_t(70)}) {
          SCOPED_TRACE("T " + std::to_string(t) + ", depth " + std::to_string(depth) + ", rows " + std::to_string(n));
          Map y = Map::Constant(t, n, NAN);
          const bool fused = dot_rows_avx2(tensor.type, data, row_bytes, n, depth, x.data(), 512, t, y.data(), n);
          ASSERT_EQ(fused, avx2 && quantized);
          if (!fused) continue;
          const Eigen::MatrixXd xd = x.leftCols(depth).cast<double>();
          const Eigen::MatrixXd wd = dense.topLeftCorner(n, depth).cast<double>();
          const Eigen::MatrixXd ref = xd * wd.transpose(), mag = xd.cwiseAbs() * wd.cwiseAbs().transpose();
          for (Eigen::Index i = 0; i < y.rows(); ++i)
            for (Eigen::Index j = 0; j < y.cols(); ++j)
              ASSERT_LE(std::fabs(double(y(i, j)) - ref(i, j)), 2e-6 * mag(i, j) + 1e-30) << "y(" << i << ", " << j << ")";
        }
      }
      for (const int64_t n : {int64_t(5), int64_t(33)}) {  // multiply_wt on a row range: the few-tokens path
        const Map y = whole.row_range(70 - n, n).multiply_wt(x, 1);
        const Eigen::MatrixXd ref = x.cast<double>() * dense.bottomRows(n).cast<double>().transpose();
        const Eigen::MatrixXd mag = x.cast<double>().cwiseAbs() * dense.bottomRows(n).cast<double>().cwiseAbs().transpose();
        EXPECT_TRUE(((y.cast<double>() - ref).cwiseAbs().array() <= 2e-6 * mag.array() + 1e-30).all()) << "rows " << n;
      }
    }
    cap_kernels("portable");  // the portable path: not fused
    float y1 = 0.0f;
    EXPECT_FALSE(dot_rows_avx2(tensor.type, data, row_bytes, 1, 512, random_x(1, 512, 1).data(), 512, 1, &y1, 1));
    cap_kernels("avx512");
  }
}

// The fused one-token product at the model's depths (896: Qwen2.5-0.5B's d_model, 4864: its
// ffn_down's) on random blocks of every quantized type, with x rows further apart than K (a
// strided view), and half-precision scales that are ordinary, tiny (subnormal), zero or negative:
// equal to dequantize_row then a float64 dot within the tolerance above, and the same bits when
// the rows are split into two calls (as threads split them).
TEST(QuantizedFusedProduct, LongRowsStridedTokensAndEdgeScalesEqualDequantizedProduct) {
  cap_kernels("avx512");
  const bool avx2 = kernel_isa() != std::string("portable");
  struct Case {
    GgmlType type;
    std::vector<int> half_at;  // offsets of the block's half scales
  };
  const Case cases[] = {{GgmlType::Q8_0, {0}},     {GgmlType::Q4_0, {0}},     {GgmlType::Q4_1, {0, 2}},
                        {GgmlType::Q5_0, {0}},     {GgmlType::Q5_1, {0, 2}},  {GgmlType::Q2_K, {80, 82}},
                        {GgmlType::Q3_K, {108}},   {GgmlType::Q4_K, {0, 2}},  {GgmlType::Q5_K, {0, 2}},
                        {GgmlType::Q6_K, {208}}};
  // 0x3000 = 0.125, 0xB400 = -0.25, 0x0001 = the smallest subnormal, 0x0000 = 0, 0x1C00 = 2^-8.
  const uint16_t scales[] = {0x3000, 0xB400, 0x0001, 0x0000, 0x1C00};
  std::mt19937 rng(34);
  for (const Case& c : cases) {
    SCOPED_TRACE(ggml_type_name(c.type));
    const GgmlTypeInfo& info = ggml_type_info(c.type);
    for (const int64_t K : {int64_t(896), int64_t(4864)}) {
      if (K % info.block_size != 0) continue;
      const int64_t n = 37, blocks = K / info.block_size;
      const size_t row_bytes = size_t(blocks * info.block_bytes);
      std::vector<uint8_t> w(row_bytes * size_t(n));
      for (uint8_t& b : w) b = uint8_t(rng());
      size_t s = 0;
      for (int64_t b = 0; b < n * blocks; ++b)
        for (const int off : c.half_at) {
          const uint16_t h = scales[s++ % 5];
          w[size_t(b * info.block_bytes + off)] = uint8_t(h & 0xFF);
          w[size_t(b * info.block_bytes + off + 1)] = uint8_t(h >> 8);
        }
      Map dense(n, K);
      for (int64_t j = 0; j < n; ++j) dequantize_row(c.type, w.data() + size_t(j) * row_bytes, dense.data() + j * K, K);
      for (const int t : {1, 2, 5}) {
        SCOPED_TRACE("K " + std::to_string(K) + ", T " + std::to_string(t));
        const int64_t ldx = K + 24;
        const Map x = random_x(t, ldx, unsigned(K + t));
        Map y = Map::Constant(t, n, NAN), y_split = Map::Constant(t, n, NAN);
        const bool fused = dot_rows_avx2(c.type, w.data(), row_bytes, n, K, x.data(), ldx, t, y.data(), n);
        ASSERT_EQ(fused, avx2);
        if (!fused) continue;
        ASSERT_TRUE(dot_rows_avx2(c.type, w.data(), row_bytes, 20, K, x.data(), ldx, t, y_split.data(), n));
        ASSERT_TRUE(dot_rows_avx2(c.type, w.data() + 20 * row_bytes, row_bytes, n - 20, K, x.data(), ldx, t,
                                  y_split.data() + 20, n));
        EXPECT_EQ(0, std::memcmp(y.data(), y_split.data(), size_t(y.size()) * sizeof(float))) << "split rows differ";
        const Eigen::MatrixXd xd = x.leftCols(K).cast<double>(), wd = dense.cast<double>();
        const Eigen::MatrixXd ref = xd * wd.transpose(), mag = xd.cwiseAbs() * wd.cwiseAbs().transpose();
        for (Eigen::Index i = 0; i < y.rows(); ++i)
          for (Eigen::Index j = 0; j < y.cols(); ++j)
            ASSERT_LE(std::fabs(double(y(i, j)) - ref(i, j)), 2e-6 * mag(i, j) + 1e-30) << "y(" << i << ", " << j << ")";
      }
    }
  }
}

TEST_F(QuantizedMatrixTest, RowsAndLookupsEqualTheDequantizedMatrix) {
  const QuantizedMatrix w(file_, "w.Q4_K");
  const Map dense = w.dequantize();
  EXPECT_EQ(w.bytes(), size_t(70 * 512 / 256 * 144)) << "kept in its encoding";
  for (const int64_t i : {int64_t(0), int64_t(33), int64_t(69)}) EXPECT_EQ(w.row(i), dense.row(i).transpose());
  const Map e = w.gather_rows({5, 5, 0, 69});
  ASSERT_EQ(e.rows(), 4);
  EXPECT_EQ(e.row(0), dense.row(5));
  EXPECT_EQ(e.row(1), dense.row(5));
  EXPECT_EQ(e.row(3), dense.row(69));
  EXPECT_THROW(w.row(70), InputError);
  EXPECT_THROW(w.gather_rows({1, -1}), InputError);
  EXPECT_THROW(w.multiply_wt(random_x(2, 100, 1)), InputError);
  EXPECT_EQ(w.multiply_wt(Map(0, 512)).rows(), 0);
}

TEST_F(QuantizedMatrixTest, WrongShapesAndTypesAreNamed) {
  auto error_of = [&](const std::string& tensor, int64_t rows, int64_t cols) -> std::string {
    try {
      if (rows < 0) QuantizedMatrix(file_, tensor);
      else QuantizedMatrix(file_, tensor, rows, cols);
    } catch (const FormatError& e) {
      return e.what();
    }
    return "no FormatError";
  };
  EXPECT_NE(error_of("w.Q8_0", 512, 70).find("'w.Q8_0' is a [70, 512] matrix (GGUF ne [512, 70]); expected [512, 70]"),
            std::string::npos);
  EXPECT_NE(error_of("w.IQ2_XXS", -1, 0).find("'w.IQ2_XXS' [256, 2] has type IQ2_XXS, which headscope cannot read"),
            std::string::npos);
  EXPECT_NE(error_of("w.3d", -1, 0).find("expected a 2-D matrix"), std::string::npos);
  EXPECT_NE(error_of("w.none", -1, 0).find("tensor 'w.none' is missing"), std::string::npos);
  EXPECT_NE(error_of("w.empty", -1, 0).find("'w.empty' has shape [512, 0] (ne[0] first); a weight matrix cannot be empty"),
            std::string::npos);
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// The next-token path: the argmax of each row of x W^T without the [T, rows] product, equal to
// argmax_rows of the product (ties to the lowest index), with and without a soft-cap, on 1 and 2
// threads; a soft-cap small enough to saturate makes ties that must go to the lowest index.
TEST_F(QuantizedMatrixTest, ArgmaxEqualsArgmaxOfTheProduct) {
  for (const char* type : kReadable) {
    SCOPED_TRACE(type);
    const QuantizedMatrix w(file_, std::string("w.") + type, 70, 512);
    const Map x = random_x(37, 512, 11);
    const Map y = w.multiply_wt(x, 1);  // [37, 70]
    for (const float cap : {0.0f, 3.0f, 1e-30f}) {
      Map capped = y;
      if (cap > 0.0f) capped = y.unaryExpr([cap](float v) { return soft_cap(v, cap); });
      const std::vector<int> want = argmax_rows(capped);
      for (const int threads : {1, 2}) EXPECT_EQ(w.argmax_wt(x, cap, threads), want) << "cap " << cap << ", " << threads << " threads";
    }
  }
  const QuantizedMatrix w(file_, "w.Q4_K");
  EXPECT_THROW(w.argmax_wt(random_x(2, 100, 1), 0.0f), InputError);
}

// Rows of a fused weight (Phi-3's attn_qkv) as matrices of their own: the same rows, products and
// lookups as the whole matrix's, and their bytes only.
TEST_F(QuantizedMatrixTest, RowRangesAreTheRowsOfTheWhole) {
  for (const char* type : {"F32", "Q8_0", "Q6_K"}) {
    SCOPED_TRACE(type);
    const QuantizedMatrix whole(file_, std::string("w.") + type, 70, 512);
    const Map dense = whole.dequantize();
    const QuantizedMatrix part = whole.row_range(20, 33);
    EXPECT_EQ(part.rows(), 33);
    EXPECT_EQ(part.cols(), 512);
    EXPECT_EQ(part.bytes(), whole.bytes() / 70 * 33);
    EXPECT_EQ(part.dequantize(), dense.middleRows(20, 33));
    EXPECT_EQ(part.row(0), dense.row(20).transpose());
    EXPECT_EQ(part.gather_rows({32, 1}).row(0), dense.row(52));
    const Map x = random_x(9, 512, 3);
    const Map y = part.multiply_wt(x, 2);
    const Map y_whole = whole.multiply_wt(x, 1);
    EXPECT_LE((y - y_whole.middleCols(20, 33)).cwiseAbs().maxCoeff(), 1e-4f);
    const QuantizedMatrix nested = part.row_range(30, 3);
    EXPECT_EQ(nested.dequantize(), dense.middleRows(50, 3));
  }
}

}  // namespace
}  // namespace hs
