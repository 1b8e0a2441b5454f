// Tokenizer fidelity (issue 14): \s in pre-tokenizer regexes is Unicode White_Space, and the
// Digits pre-tokenizer splits every Unicode number (Nd, Nl, No), as Hugging Face tokenizers and
// GPT-2's encoder.py do.
//
// How the expected ids were derived: the split of each text is reasoned out below from the
// reference definitions, then each piece's ids come from OpenAI's encoder.py BPE run on GPT-2's
// encoder.json / vocab.bpe (tests/core/pretrained/gpt2_reference_tokenizer.py, whose \s is
// Python's str.isspace(), false for U+180E and true for U+00A0):
//   - U+180E MONGOLIAN VOWEL SEPARATOR is general category Cf since Unicode 6.3, not White_Space.
//     In GPT-2's regex "a \u180eb" is then "a" | " \u180e" ( ?[^\s\p{L}\p{N}]+) | "b": ids
//     [64] [28053, 254, 236] [65]. PCRE2's \s matched U+180E and gave "a" | " " | "\u180e" | "b"
//     = 64, 220, 157, 254, 236, 65. Llama 3's regex splits the same way ( ?[^\s\p{L}\p{N}]+[\r\n]*),
//     where PCRE2's \s gave "a" | " " | "\u180eb".
//   - Hugging Face's Digits splits on Rust's char::is_numeric (categories Nd, Nl, No), runs kept
//     together (Contiguous). "half: ½ cup" is "half: " | "½" | " cup"; ByteLevel's GPT-2 regex
//     then gives "half" ":" " " "½" " cup" = 13959, 25, 220, 23141, 6508 (with only 0-9 counted,
//     " ½" stayed one piece, 25208).
//   - "x² ①Ⅻ ٣٤ ５５": ² (No), ① (No), Ⅻ (Nl), ٣ ٤ (Nd, Arabic-Indic), ５ (Nd, full-width) are
//     numbers: "x" "²" " " "①Ⅻ" " " "٣٤" " " "５５" = 87 | 31185 | 220 | 158, 239, 254, 158, 227, 104 |
//     220 | 149, 96, 149, 97 | 220 | 171, 120, 243, 171, 120, 243.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/text/gpt2_byte_map.h"
#include "core/text/gpt2_tokenizer.h"
#include "core/text/tokenizer_json.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

using nlohmann::json;

std::vector<std::string> split(const std::string& pattern, const std::string& text) {
  std::vector<std::string> out;
  RegexBudget budget(text.size());
  RegexSplitter(pattern, "test").split(text, true, true, out, budget);
  return out;
}

using Pieces = std::vector<std::string>;

const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

TEST(RegexWhiteSpace, MongolianVowelSeparatorIsNotWhiteSpace) {
  EXPECT_EQ(split(kGpt2SplitPattern, "a \u180e" "b"), (Pieces{"a", " \u180e", "b"}));
  EXPECT_EQ(split(kLlama3Pattern, "a \u180e" "b"), (Pieces{"a", " \u180e", "b"}));
  // No-break space is White_Space: two of them before a letter split as encoder.py does.
  EXPECT_EQ(split(kGpt2SplitPattern, "a\u00a0\u00a0" "b"), (Pieces{"a", "\u00a0", "\u00a0", "b"}));
  EXPECT_EQ(split(kGpt2SplitPattern, "x \t\u3000y"), (Pieces{"x", " \t", "\u3000", "y"})) << "U+3000 is White_Space";
  // \S, \s inside and outside classes, and escapes that only look like \s.
  EXPECT_EQ(split(R"(\S+)", "a\u180e" "b c"), (Pieces{"a\u180e" "b", " ", "c"}));
  EXPECT_EQ(split(R"([^\s]+)", "a\u180e" "b\u2003c"), (Pieces{"a\u180e" "b", "\u2003", "c"}));
  EXPECT_EQ(split(R"([\S]+)", "a\u180e" "b c"), (Pieces{"a\u180e" "b", " ", "c"}));
  EXPECT_EQ(split(R"(\\s)", "a\\sb"), (Pieces{"a", "\\s", "b"})) << "an escaped backslash, then a letter s";
  EXPECT_EQ(split(R"(\Q\s\E)", "a\\sb"), (Pieces{"a", "\\s", "b"})) << "\\Q...\\E is literal";
  EXPECT_EQ(split(R"([]\s]+)", "a] b"), (Pieces{"a", "] ", "b"})) << "a leading ] is a literal in a class";
}

class Gpt2Files : public ::testing::Test {
 protected:
  void SetUp() override {
    vocab_ = test::model_file("gpt2-tokenizer/encoder.json");
    merges_ = test::model_file("gpt2-tokenizer/vocab.bpe");
    if (vocab_.empty() || merges_.empty()) GTEST_SKIP() << "gpt2-tokenizer not found under " << test::models_dir();
  }
  // A tokenizer.json with GPT-2's vocabulary and merges and the given pre-tokenizer steps.
  std::unique_ptr<TokenizerPipeline> with_pre_tokenizers(const std::string& name, const json& steps) const {
    std::ifstream v(vocab_), m(merges_);
    json vocab = json::parse(v);
    json merges = json::array();
    std::string line;
    std::getline(m, line);  // #version
    while (std::getline(m, line))
      if (!line.empty()) merges.push_back(line);
    const json j = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}},
                    {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", steps}}}};
    const std::string path = test::scratch_dir("fidelity_" + name) + "/tokenizer.json";
    test::write_text(path, j.dump());
    return load_tokenizer_json(path);
  }
  std::string vocab_, merges_;
};

TEST_F(Gpt2Files, Gpt2RegexUsesWhiteSpace) {
  EXPECT_EQ(load_gpt2_tokenizer(vocab_, merges_)->encode("a \u180e" "b"), (std::vector<int>{64, 28053, 254, 236, 65}));
}

TEST_F(Gpt2Files, Llama3SplitUsesWhiteSpace) {
  const auto tok = with_pre_tokenizers("llama3", json::array({
      {{"type", "Split"}, {"pattern", {{"Regex", kLlama3Pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
      {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}}));
  EXPECT_EQ(tok->encode("a \u180e" "b"), (std::vector<int>{64, 28053, 254, 236, 65}));
}

TEST_F(Gpt2Files, DigitsSplitsUnicodeNumbers) {
  const auto tok = with_pre_tokenizers("digits", json::array({
      {{"type", "Digits"}, {"individual_digits", false}},
      {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}}));
  EXPECT_EQ(tok->encode("half: \u00bd cup"), (std::vector<int>{13959, 25, 220, 23141, 6508}));
  EXPECT_EQ(tok->encode("x\u00b2 \u2460\u216b \u0663\u0664 \uff15\uff15"),
            (std::vector<int>{87, 31185, 220, 158, 239, 254, 158, 227, 104, 220, 149, 96, 149, 97, 220, 171, 120, 243, 171, 120, 243}));
}

}  // namespace
}  // namespace hs
