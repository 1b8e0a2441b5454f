// GPT-2 byte-level BPE against known encodings of tricky text. Expected ids come from
// tests/core/pretrained/gpt2_reference_tokenizer.py (OpenAI's encoder.py algorithm in pure
// Python) run on the real encoder.json / vocab.bpe; "Hello world" = [15496, 995] is the
// well-known anchor. The same reference also runs live in pretrained.hf_vs_torch.
#include <gtest/gtest.h>

#include "core/text/gpt2_byte_map.h"
#include "core/text/gpt2_tokenizer.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

class Gpt2Tokenizer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string vocab = test::model_file("gpt2-tokenizer/encoder.json");
    const std::string merges = test::model_file("gpt2-tokenizer/vocab.bpe");
    if (!vocab.empty() && !merges.empty()) tok_ = load_gpt2_tokenizer(vocab, merges).release();
  }
  static void TearDownTestSuite() {
    delete tok_;
    tok_ = nullptr;
  }
  void SetUp() override {
    if (!tok_) GTEST_SKIP() << "gpt2-tokenizer/encoder.json and vocab.bpe not found under " << test::models_dir()
                            << " (set HEADSCOPE_MODELS_DIR)";
  }
  static TokenizerPipeline* tok_;
};

TokenizerPipeline* Gpt2Tokenizer::tok_ = nullptr;

struct Known {
  const char* text;
  std::vector<int> ids;
};

TEST_F(Gpt2Tokenizer, ReproducesKnownEncodings) {
  const Known cases[] = {
      {"Hello world", {15496, 995}},
      {" Hello  world", {18435, 220, 995}},
      {"I'm can't we'll they've she'd you're it's", {40, 1101, 460, 470, 356, 1183, 484, 1053, 673, 1549, 345, 821, 340, 338}},
      {"In 2024, 3.14159 and 1000000 people", {818, 48609, 11, 513, 13, 1415, 19707, 290, 1802, 2388, 661}},
      {"café naïve résumé Zürich", {66, 1878, 2634, 41492, 40560, 16345, 2634, 1168, 9116, 7527}},
      {"emoji 🐶🎉 ok 👍🏽", {368, 31370, 12520, 238, 114, 8582, 236, 231, 12876, 50169, 235, 8582, 237, 121}},
      {"line one\nline two\n\n  indented\ttab", {1370, 530, 198, 1370, 734, 628, 220, 773, 4714, 197, 8658}},
      {"   leading spaces and trailing   ", {220, 220, 3756, 9029, 290, 25462, 220, 220, 220}},
      {"日本語のテキスト", {33768, 98, 17312, 105, 45739, 252, 5641, 24336, 25084, 43302}},
      {"He said: \"don't\"!!! (really?)", {1544, 531, 25, 366, 9099, 470, 1, 10185, 357, 27485, 10091}},
      {"CAPS'LL 'S", {33177, 50, 6, 3069, 705, 50}},
      // Hugging Face cuts the special token out first (encoder.py would spell it out).
      {"x<|endoftext|>y", {87, 50256, 88}},
      {"", {}},
  };
  for (const Known& k : cases) EXPECT_EQ(tok_->encode(k.text), k.ids) << "text: \"" << k.text << "\"";
}

TEST_F(Gpt2Tokenizer, LabelsShowPiecesAsTheModelSeesThem) {
  EXPECT_EQ(tok_->vocab_size(), 50257);
  EXPECT_EQ(tok_->label(995), "\xE2\x96\x81" "world");  // "Ġworld": leading space as ▁
  EXPECT_EQ(tok_->label(15496), "Hello");
  EXPECT_EQ(tok_->label(198), "\xE2\x86\xB5");          // "Ċ": newline as ↵
  EXPECT_EQ(tok_->label(50256), "<|endoftext|>");
  EXPECT_EQ(tok_->label(12520), "\xE2\x96\x81<0xF0><0x9F>");  // " \xF0\x9F": first bytes of an emoji
  EXPECT_EQ(tok_->piece_bytes(2634), "\xC3\xA9");        // "é"
}

TEST(Gpt2ByteMap, RoundTripsEveryByte) {
  EXPECT_EQ(gpt2_byte_to_unicode(' '), "\xC4\xA0");  // Ġ U+0120
  EXPECT_EQ(gpt2_byte_to_unicode('\n'), "\xC4\x8A"); // Ċ U+010A
  EXPECT_EQ(gpt2_byte_to_unicode('A'), "A");
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  std::string back;
  ASSERT_TRUE(gpt2_unicode_to_bytes(gpt2_bytes_to_unicode(all), back));
  EXPECT_EQ(back, all);
  EXPECT_FALSE(gpt2_unicode_to_bytes("\xE2\x96\x81", back)) << "▁ is not in the byte alphabet";
}

TEST(Gpt2TokenizerFiles, BadFilesAreFormatErrors) {
  const std::string dir = test::scratch_dir("gpt2_tokenizer_files");
  test::write_text(dir + "/vocab.json", R"({"a": 0, "b": 1, "ab": 2})");
  test::write_text(dir + "/merges.txt", "#version: 0.2\na b\n");
  EXPECT_EQ(load_gpt2_tokenizer(dir + "/vocab.json", dir + "/merges.txt")->encode("abab"), std::vector<int>({2, 2}));
  auto error_of = [&](const std::string& vocab, const std::string& merges) -> std::string {
    test::write_text(dir + "/v.json", vocab);
    test::write_text(dir + "/m.txt", merges);
    try {
      load_gpt2_tokenizer(dir + "/v.json", dir + "/m.txt");
    } catch (const FormatError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of("{\"a\": 0,", "").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]", "").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": "x"})", "").find("is not an integer"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": 0, "b": 5})", "").find("has id 5; expected 0..1"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": 0, "b": 1})", "#version: 0.2\na b\n").find("merge 0 (\"a\" \"b\") uses a piece"), std::string::npos);
  EXPECT_NE(error_of(R"({"a": 0, "b": 1, "ab": 2})", "#version: 0.2\nab\n").find("line 2 is not a merge"), std::string::npos);
}

}  // namespace
}  // namespace hs
