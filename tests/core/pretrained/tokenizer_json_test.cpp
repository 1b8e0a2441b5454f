// tokenizer.json pipelines beyond GPT-2's: Llama 3-style regex Split + ByteLevel without regex,
// ignore_merges, Digits, Metaspace with prepend_scheme "first" around added tokens, templates
// with a suffix. Expected ids are worked out by hand from Hugging Face tokenizers' rules.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/gpt2_byte_map.h"
#include "core/text/gpt2_tokenizer.h"
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

// Every Split behaviour, invert, Punctuation's behaviours and CharDelimiterSplit on a tiny BPE
// whose merges cross the cut points ("a -", "- b", "- -", ...): the ids show where each behaviour
// cuts. Expected ids: Hugging Face tokenizers itself, from tokenizers_split_cases.js (npm's
// @anush008/tokenizers), which builds this same file.
json split_tokenizer_json(const json& pre_tokenizer) {
  const std::vector<std::string> pieces = {"a", "b", "c", "-", " ", "a-", "-b", "--", "-c", "b-", "a-b", "[UNK]"};
  json vocab = json::object();
  for (size_t i = 0; i < pieces.size(); ++i) vocab[pieces[i]] = int(i);
  return {{"added_tokens", json::array()}, {"normalizer", nullptr}, {"pre_tokenizer", pre_tokenizer}, {"post_processor", nullptr},
          {"model", {{"type", "BPE"}, {"unk_token", "[UNK]"}, {"fuse_unk", false}, {"byte_fallback", false}, {"vocab", vocab},
                     {"merges", {"a -", "- b", "- -", "- c", "b -", "a- b"}}}}};
}

struct SplitCase {
  const char* pre_tokenizer;            // JSON
  std::vector<std::vector<int>> ids;    // one per kSplitTexts entry
};

const std::vector<std::string> kSplitTexts = {"a-b", "a--b", "-a-", "a-b--c", "--", "b-a -c", "ab", ""};

const std::vector<SplitCase> kSplitCases = {
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Removed\",\"invert\":false}", {{0, 1}, {0, 1}, {0}, {0, 1, 2}, {}, {1, 0, 4, 2}, {0, 1}, {}}},  // String "-" Removed
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Removed\",\"invert\":true}", {{3}, {3, 3}, {3, 3}, {3, 3, 3}, {3, 3}, {3, 3}, {}, {}}},  // String "-" Removed invert
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Isolated\",\"invert\":false}", {{0, 3, 1}, {0, 3, 3, 1}, {3, 0, 3}, {0, 3, 1, 3, 3, 2}, {3, 3}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" Isolated
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Isolated\",\"invert\":true}", {{0, 3, 1}, {0, 3, 3, 1}, {3, 0, 3}, {0, 3, 1, 3, 3, 2}, {3, 3}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" Isolated invert
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"MergedWithPrevious\",\"invert\":false}", {{5, 1}, {5, 3, 1}, {3, 5}, {5, 9, 3, 2}, {3, 3}, {9, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" MergedWithPrevious
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"MergedWithPrevious\",\"invert\":true}", {{0, 6}, {0, 3, 6}, {3, 0, 3}, {0, 6, 3, 8}, {3, 3}, {1, 3, 0, 4, 8}, {0, 1}, {}}},  // String "-" MergedWithPrevious invert
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"MergedWithNext\",\"invert\":false}", {{0, 6}, {0, 3, 6}, {3, 0, 3}, {0, 6, 3, 8}, {3, 3}, {1, 3, 0, 4, 8}, {0, 1}, {}}},  // String "-" MergedWithNext
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"MergedWithNext\",\"invert\":true}", {{5, 1}, {5, 3, 1}, {3, 5}, {5, 9, 3, 2}, {3, 3}, {9, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" MergedWithNext invert
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Contiguous\",\"invert\":false}", {{0, 3, 1}, {0, 7, 1}, {3, 0, 3}, {0, 3, 1, 7, 2}, {7}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" Contiguous
    {"{\"type\":\"Split\",\"pattern\":{\"String\":\"-\"},\"behavior\":\"Contiguous\",\"invert\":true}", {{0, 3, 1}, {0, 7, 1}, {3, 0, 3}, {0, 3, 1, 7, 2}, {7}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // String "-" Contiguous invert
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"-+|b\"},\"behavior\":\"Removed\",\"invert\":false}", {{0}, {0}, {0}, {0, 2}, {}, {0, 4, 2}, {0}, {}}},  // Regex "-+|b" Removed
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"-+|b\"},\"behavior\":\"Isolated\",\"invert\":false}", {{0, 3, 1}, {0, 7, 1}, {3, 0, 3}, {0, 3, 1, 7, 2}, {7}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Regex "-+|b" Isolated
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"-+|b\"},\"behavior\":\"MergedWithPrevious\",\"invert\":false}", {{5, 1}, {5, 3, 1}, {3, 5}, {5, 1, 7, 2}, {7}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Regex "-+|b" MergedWithPrevious
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"-+|b\"},\"behavior\":\"MergedWithNext\",\"invert\":false}", {{0, 3, 1}, {0, 7, 1}, {3, 0, 3}, {0, 3, 1, 7, 2}, {7}, {1, 3, 0, 4, 8}, {0, 1}, {}}},  // Regex "-+|b" MergedWithNext
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"-+|b\"},\"behavior\":\"Contiguous\",\"invert\":false}", {{0, 6}, {0, 3, 6}, {3, 0, 3}, {0, 6, 7, 2}, {7}, {9, 0, 4, 3, 2}, {0, 1}, {}}},  // Regex "-+|b" Contiguous
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"x*\"},\"behavior\":\"Isolated\",\"invert\":false}", {{0, 3, 1}, {0, 3, 3, 1}, {3, 0, 3}, {0, 3, 1, 3, 3, 2}, {3, 3}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Regex "x*" Isolated (empty matches)
    {"{\"type\":\"Split\",\"pattern\":{\"Regex\":\"x*\"},\"behavior\":\"MergedWithNext\",\"invert\":false}", {{0, 3, 1}, {0, 3, 3, 1}, {3, 0, 3}, {0, 3, 1, 3, 3, 2}, {3, 3}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Regex "x*" MergedWithNext (empty matches)
    {"{\"type\":\"Punctuation\",\"behavior\":\"Removed\"}", {{0, 1}, {0, 1}, {0}, {0, 1, 2}, {}, {1, 0, 4, 2}, {0, 1}, {}}},  // Punctuation Removed
    {"{\"type\":\"Punctuation\",\"behavior\":\"Isolated\"}", {{0, 3, 1}, {0, 3, 3, 1}, {3, 0, 3}, {0, 3, 1, 3, 3, 2}, {3, 3}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Punctuation Isolated
    {"{\"type\":\"Punctuation\",\"behavior\":\"MergedWithPrevious\"}", {{5, 1}, {5, 3, 1}, {3, 5}, {5, 9, 3, 2}, {3, 3}, {9, 0, 4, 3, 2}, {0, 1}, {}}},  // Punctuation MergedWithPrevious
    {"{\"type\":\"Punctuation\",\"behavior\":\"MergedWithNext\"}", {{0, 6}, {0, 3, 6}, {3, 0, 3}, {0, 6, 3, 8}, {3, 3}, {1, 3, 0, 4, 8}, {0, 1}, {}}},  // Punctuation MergedWithNext
    {"{\"type\":\"Punctuation\",\"behavior\":\"Contiguous\"}", {{0, 3, 1}, {0, 7, 1}, {3, 0, 3}, {0, 3, 1, 7, 2}, {7}, {1, 3, 0, 4, 3, 2}, {0, 1}, {}}},  // Punctuation Contiguous
    {"{\"type\":\"CharDelimiterSplit\",\"delimiter\":\"-\"}", {{0, 1}, {0, 1}, {0}, {0, 1, 2}, {}, {1, 0, 4, 2}, {0, 1}, {}}},  // CharDelimiterSplit "-"
};

TEST(TokenizerJson, SplitBehavioursAsTokenizers) {
  for (size_t c = 0; c < kSplitCases.size(); ++c) {
    const auto tok = load("split_" + std::to_string(c), split_tokenizer_json(json::parse(kSplitCases[c].pre_tokenizer)));
    for (size_t t = 0; t < kSplitTexts.size(); ++t) {
      EXPECT_EQ(tok->encode(kSplitTexts[t]), kSplitCases[c].ids[t])
          << kSplitCases[c].pre_tokenizer << " on \"" << kSplitTexts[t] << "\"";
    }
  }
}

TEST(TokenizerJson, UnknownSplitBehaviourIsNamed) {
  json pre = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", "Sideways"}};
  try {
    load("split_sideways", split_tokenizer_json(pre));
    FAIL() << "expected FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("Sideways"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MergedWithPrevious"), std::string::npos) << e.what();
  }
}

// Merge ranks not in build order ("aa a" ranks before "a a", as in SentencePiece-derived files such
// as Gemma 3's): tokenizers merges the lowest (rank, position) pair next, so "aa" + "a" merges as
// soon as the first "aa" exists. GPT-2's encoder.py (every "a a" first) would give [1, 1] for "aaaa".
TEST(TokenizerJson, MergesLowestRankAndPositionFirst) {
  const json j = {{"added_tokens", json::array()}, {"normalizer", nullptr}, {"pre_tokenizer", nullptr},
                  {"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"aa", 1}, {"aaa", 2}}}, {"merges", {"aa a", "a a"}}}}};
  const auto tok = load("merge_order", j);
  EXPECT_EQ(tok->encode("aaaa"), (std::vector<int>{2, 0}));  // tokenizers: [2, 0]
  EXPECT_EQ(tok->encode("aaaaa"), (std::vector<int>{2, 1}));  // [2, 1]
  EXPECT_EQ(tok->encode("aaaaaaa"), (std::vector<int>{2, 2, 0}));  // [2, 2, 0]
}

// A vocab.json + merges.txt folder keeps GPT-2's encoder.py order: every occurrence of the
// lowest-ranked pair present, then the next (transformers' slow GPT2Tokenizer does the same).
TEST(TokenizerJson, Gpt2MergesTxtKeepsEncoderPyOrder) {
  const std::string dir = test::scratch_dir("tokenizer_json_gpt2_order");
  test::write_text(dir + "/vocab.json", R"({"a": 0, "aa": 1, "aaa": 2})");
  test::write_text(dir + "/merges.txt", "#version: 0.2\naa a\na a\n");
  const auto tok = load_gpt2_tokenizer(dir + "/vocab.json", dir + "/merges.txt");
  EXPECT_EQ(tok->encode("aaaa"), (std::vector<int>{1, 1}));
  EXPECT_EQ(tok->encode("aaaaa"), (std::vector<int>{1, 2}));  // [aa, aa, a], then "aa a"
}

TEST(TokenizerJson, UnsupportedPartsAreFormatErrors) {
  json j = metaspace_style("first");
  j["pre_tokenizer"] = {{"type", "UnicodeScripts"}};
  EXPECT_THROW(load("unicode_scripts", j), FormatError);
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
