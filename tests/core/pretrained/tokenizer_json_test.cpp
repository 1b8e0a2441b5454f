// tokenizer.json pipelines beyond GPT-2's: Llama 3-style regex Split + ByteLevel without regex,
// ignore_merges, Digits, Metaspace with prepend_scheme "first" around added tokens, templates
// with a suffix. Expected ids are worked out by hand from Hugging Face tokenizers' rules.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/gpt2_byte_map.h"
#include "core/text/tokenizer_json.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

using nlohmann::json;

// Byte-level vocabulary: id b = the byte alphabet's character for byte b, then `extra` pieces.
json byte_vocab(const std::vector<std::string>& extra) {
  json v = json::object();
  for (int b = 0; b < 256; ++b) v[gpt2_byte_to_unicode(static_cast<unsigned char>(b))] = b;
  for (size_t i = 0; i < extra.size(); ++i) v[extra[i]] = 256 + int(i);
  return v;
}

std::unique_ptr<TokenizerPipeline> load(const std::string& name, const json& j) {
  const std::string path = test::scratch_dir("tokenizer_json_" + name) + "/tokenizer.json";
  test::write_text(path, j.dump());
  return load_tokenizer_json(path);
}

std::vector<int> bytes_of(const std::string& s) {
  std::vector<int> ids;
  for (const char c : s) ids.push_back(static_cast<unsigned char>(c));
  return ids;
}

std::vector<int> cat(std::vector<std::vector<int>> parts) {
  std::vector<int> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const char* kLlama3Pattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

json llama3_style(bool ignore_merges) {
  const std::string g = gpt2_byte_to_unicode(' ');  // "Ġ"
  return {{"added_tokens", json::array({{{"id", 260}, {"content", "<|begin_of_text|>"}, {"special", true}}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", json::array({
              {{"type", "Split"}, {"pattern", {{"Regex", kLlama3Pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
              {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}})}}},
          {"post_processor", {{"type", "Sequence"}, {"processors", json::array({
              {{"type", "ByteLevel"}},
              {{"type", "TemplateProcessing"},
               {"single", json::array({{{"SpecialToken", {{"id", "<|begin_of_text|>"}}}}, {{"Sequence", {{"id", "A"}}}}})},
               {"special_tokens", {{"<|begin_of_text|>", {{"id", "<|begin_of_text|>"}, {"ids", {260}}}}}}}})}}},
          {"model", {{"type", "BPE"}, {"ignore_merges", ignore_merges}, {"byte_fallback", false},
                     {"vocab", byte_vocab({g + "apples", "12", "123", "'ve"})},
                     {"merges", json::array({json::array({"1", "2"}), json::array({"12", "3"})})}}}};
}

TEST(TokenizerJson, Llama3StyleSplitThenByteLevel) {
  const auto tok = load("llama3", llama3_style(true));
  // Splits: "I" "'VE" " " "123" "45" " apples"; the contraction group is case-insensitive.
  // ignore_merges: " apples" (Ġapples, 256) and "'ve" are pieces themselves; "123" by merges.
  EXPECT_EQ(tok->encode("I'VE 12345 apples"),
            cat({{260}, bytes_of("I"), bytes_of("'VE"), bytes_of(" "), {258}, bytes_of("45"), {256}}));
  EXPECT_EQ(tok->encode("we've"), cat({{260}, bytes_of("we"), {259}}));
  const auto no_ignore = load("llama3_merges", llama3_style(false));
  EXPECT_EQ(no_ignore->encode(" apples"), cat({{260}, bytes_of(" apples")})) << "no merge path to Ġapples";
  EXPECT_EQ(tok->label(256), "\xE2\x96\x81" "apples");
  EXPECT_EQ(tok->label(260), "<|begin_of_text|>");
}

TEST(TokenizerJson, DigitsSplitBeforeByteLevel) {
  json j = llama3_style(false);
  j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", json::array({
      {{"type", "Digits"}, {"individual_digits", true}},
      {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}})}};
  j["post_processor"] = nullptr;
  const auto tok = load("digits", j);
  EXPECT_EQ(tok->encode("a123"), bytes_of("a123")) << "each digit alone: the 1+2 merge never applies";
  j["pre_tokenizer"]["pretokenizers"][0]["individual_digits"] = false;
  EXPECT_EQ(load("digit_runs", j)->encode("a123"), cat({bytes_of("a"), {258}}));
}

json metaspace_style(const std::string& scheme) {
  return {{"added_tokens", json::array({{{"id", 1}, {"content", "<s>"}, {"special", true}},
                                        {{"id", 2}, {"content", "</s>"}, {"special", true}}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"prepend_scheme", scheme}, {"split", true}}},
          {"post_processor", {{"type", "TemplateProcessing"},
                              {"single", json::array({{{"Sequence", {{"id", "A"}}}}, {{"SpecialToken", {{"id", "</s>"}}}}})},
                              {"special_tokens", {{"</s>", {{"id", "</s>"}, {"ids", {2}}}}}}}},
          {"model", {{"type", "BPE"}, {"byte_fallback", true}, {"unk_token", "<unk>"},
                     {"vocab", {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"\xE2\x96\x81", 3}, {"a", 4}, {"b", 5},
                                {"\xE2\x96\x81" "a", 6}, {"<0xC3>", 7}, {"<0xA9>", 8}}},
                     {"merges", json::array({"\xE2\x96\x81 a"})}}}};
}

TEST(TokenizerJson, MetaspacePrependSchemes) {
  // "first": only the text before the first added token gets the ▁ prefix; suffix </s> appended.
  EXPECT_EQ(load("meta_first", metaspace_style("first"))->encode("ab<s>ab a"), std::vector<int>({6, 5, 1, 4, 5, 6, 2}));
  EXPECT_EQ(load("meta_always", metaspace_style("always"))->encode("ab<s>ab"), std::vector<int>({6, 5, 1, 6, 5, 2}));
  EXPECT_EQ(load("meta_never", metaspace_style("never"))->encode("ab"), std::vector<int>({4, 5, 2}));
  // Byte fallback: "é" is not a piece, so its UTF-8 bytes C3 A9 are; "z" has no byte piece here,
  // so it is the unknown token (as Hugging Face's BPE falls back when a byte piece is missing).
  const auto tok = load("meta_bytes", metaspace_style("never"));
  EXPECT_EQ(tok->encode("\xC3\xA9"), std::vector<int>({7, 8, 2}));
  EXPECT_EQ(tok->label(7), "<0xC3>");
  EXPECT_EQ(tok->encode("z"), std::vector<int>({0, 2}));
}

TEST(TokenizerJson, UnsupportedPartsAreFormatErrors) {
  json j = metaspace_style("first");
  j["pre_tokenizer"] = {{"type", "CharDelimiterSplit"}, {"delimiter", " "}};
  EXPECT_THROW(load("char_delimiter", j), FormatError);
  j = metaspace_style("first");
  j["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  try {
    load("bad_regex", j);
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("does not compile"), std::string::npos) << e.what();
  }
  j = metaspace_style("first");
  j["post_processor"] = {{"type", "BertProcessing"}};  // without its cls and sep
  EXPECT_THROW(load("bert_post", j), FormatError);
  j = metaspace_style("first");
  j["model"]["type"] = "WordLevel";
  EXPECT_THROW(load("word_level", j), FormatError);
}

// The message of the FormatError loading `text` as tokenizer.json throws ("no error" if it loads).
std::string error_of_text(const std::string& name, const std::string& text) {
  const std::string path = test::scratch_dir("tokenizer_json_" + name) + "/tokenizer.json";
  test::write_text(path, text);
  try {
    load_tokenizer_json(path);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "no error";
}

// Issue 15: an id of 2^40 was cut to an int and reported as "id 0 is given to two pieces"; a
// piece listed twice in the vocabulary silently kept its last id.
TEST(TokenizerJson, IdsOutOfRangeAndRepeatedKeysAreNamed) {
  const std::string prefix = R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": )";
  const std::string huge = error_of_text("huge_id", prefix + R"(1099511627776}, "merges": []}})");
  EXPECT_NE(huge.find("\"b\""), std::string::npos) << huge;
  EXPECT_NE(huge.find("1099511627776"), std::string::npos) << huge;
  EXPECT_EQ(huge.find("id 0 is given to two pieces"), std::string::npos) << huge;
  const std::string negative = error_of_text("negative_id", prefix + R"(-4294967296}, "merges": []}})");
  EXPECT_NE(negative.find("-4294967296"), std::string::npos) << negative;
  const std::string twice = error_of_text("twice", R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 2}, "merges": []}})");
  EXPECT_NE(twice.find("tokenizer.json"), std::string::npos) << twice;
  EXPECT_NE(twice.find("\"a\" appears twice"), std::string::npos) << twice;
  const std::string added = error_of_text("added_huge", R"({"added_tokens": [{"id": 4294967296, "content": "<s>"}],
    "model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})");
  EXPECT_NE(added.find("4294967296"), std::string::npos) << added;
}

}  // namespace
}  // namespace hs
