// stories260K converted to GGUF by tests/core/formats/make_gguf_test_files.py under llama.cpp's
// Llama tensor names (token_embd, blk.N.attn_q, ..., output_norm; no output.weight: tied). The
// F32 file must hold the llama2.c checkpoint's matrices exactly, as QuantizedMatrix reads them;
// the Q8_0 file (F16 where a row is not whole blocks of 32) within half a quantization step,
// at most max|row| / 127 per weight. This pins the name and shape mapping the GGUF loader uses.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/model/quantized_matrix.h"
#include "core/text/gguf_tokenizer.h"
#include "tests/core/formats/gguf_test_files.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

TEST(StoriesGguf, HoldsTheCheckpointUnderLlamaCppNames) {
  HS_REQUIRE_GGUF_FILE(f32_path, "stories260K_f32.gguf");
  HS_REQUIRE_GGUF_FILE(q8_path, "stories260K_q8_0.gguf");
  const std::string bin = test::model_file("stories260K/stories260K.bin");
  ASSERT_FALSE(bin.empty()) << "the GGUF files were made from it";
  const std::vector<uint8_t> bytes = test::read_bytes(bin);
  int32_t header[7];
  std::memcpy(header, bytes.data(), sizeof header);
  const int d = header[0], hidden = header[1], layers = header[2], heads = header[3], kv = header[4], vocab = header[5];
  const int dh = d / heads;
  const float* w = reinterpret_cast<const float*>(bytes.data() + 28);  // the float arrays, in file order
  const auto f32 = std::make_shared<const GgufFile>(f32_path);
  const auto q8 = std::make_shared<const GgufFile>(q8_path);
  for (const auto& file : {f32, q8}) {
    EXPECT_EQ(file->get_string("general.architecture"), "llama");
    EXPECT_EQ(file->get_int("llama.embedding_length"), d);
    EXPECT_EQ(file->get_int("llama.feed_forward_length"), hidden);
    EXPECT_EQ(file->get_int("llama.block_count"), layers);
    EXPECT_EQ(file->get_int("llama.attention.head_count"), heads);
    EXPECT_EQ(file->get_int("llama.attention.head_count_kv"), kv);
    EXPECT_EQ(load_gguf_tokenizer(*file)->vocab_size(), vocab);
  }
  // Offsets of the checkpoint's arrays (core/model/llama2c_checkpoint.h).
  const int64_t kvd = int64_t(kv) * dh;
  const int64_t emb = 0, rms_att = emb + int64_t(vocab) * d, wq = rms_att + int64_t(layers) * d;
  const int64_t wk = wq + int64_t(layers) * d * d, wv = wk + layers * kvd * d, wo = wv + layers * kvd * d;
  const int64_t rms_ffn = wo + int64_t(layers) * d * d, w1 = rms_ffn + int64_t(layers) * d;
  const int64_t w2 = w1 + int64_t(layers) * hidden * d, w3 = w2 + int64_t(layers) * d * hidden;
  const int64_t rms_final = w3 + int64_t(layers) * hidden * d;

  auto check = [&](const std::string& name, int64_t offset, int64_t rows, int64_t cols) {
    SCOPED_TRACE(name);
    const Eigen::Map<const Map> want(w + offset, rows, cols);  // [rows, cols], nn.Linear layout
    const Map exact = QuantizedMatrix(f32, name, rows, cols).dequantize();
    EXPECT_EQ(exact, want);
    const QuantizedMatrix q(q8, name, rows, cols);
    const Map approx = q.dequantize();
    for (Eigen::Index r = 0; r < rows; ++r) {
      const float step = want.row(r).cwiseAbs().maxCoeff() / 127.0f;
      ASSERT_LE((approx.row(r) - want.row(r)).cwiseAbs().maxCoeff(), step) << ggml_type_name(q.type()) << " row " << r;
    }
  };
  auto check_vector = [&](const std::string& name, int64_t offset, int64_t size) {
    for (const auto& file : {f32, q8}) {
      const std::vector<float> v = file->dequantize(file->tensor(name));
      ASSERT_EQ(int64_t(v.size()), size) << name;
      EXPECT_EQ(0, std::memcmp(v.data(), w + offset, size_t(size) * sizeof(float))) << name << " (vectors stay F32)";
    }
  };
  check("token_embd.weight", emb, vocab, d);
  check_vector("output_norm.weight", rms_final, d);
  EXPECT_EQ(f32->find_tensor("output.weight"), nullptr) << "tied classifier: no output.weight";
  for (int l = 0; l < layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    check_vector(b + "attn_norm.weight", rms_att + int64_t(l) * d, d);
    check(b + "attn_q.weight", wq + int64_t(l) * d * d, d, d);
    check(b + "attn_k.weight", wk + l * kvd * d, kvd, d);
    check(b + "attn_v.weight", wv + l * kvd * d, kvd, d);
    check(b + "attn_output.weight", wo + int64_t(l) * d * d, d, d);
    check_vector(b + "ffn_norm.weight", rms_ffn + int64_t(l) * d, d);
    check(b + "ffn_gate.weight", w1 + int64_t(l) * hidden * d, hidden, d);
    check(b + "ffn_down.weight", w2 + int64_t(l) * d * hidden, d, hidden);
    check(b + "ffn_up.weight", w3 + int64_t(l) * hidden * d, hidden, d);
  }
  EXPECT_EQ(q8->tensor("blk.0.attn_q.weight").type, GgmlType::Q8_0);
  EXPECT_EQ(q8->tensor("blk.0.ffn_down.weight").type, GgmlType::F16) << "rows of 172 are not whole Q8_0 blocks";
}

}  // namespace
}  // namespace hs
