// encode_pair(): what the BERT-family models read (ids, token types, which text each token came
// from, special flags, labels) for BertProcessing, RobertaProcessing, TemplateProcessing and
// tokenizers without a pair form; and the Unicode pieces under the normalizers (ICU), including
// a precompiled charsmap whose double array points outside itself.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/text/precompiled_charsmap.h"
#include "core/text/tokenizer_folder.h"
#include "core/text/tokenizer_json.h"
#include "core/text/unicode_text.h"
#include "core/util/errors.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

using nlohmann::json;
using Ids = std::vector<int>;

std::unique_ptr<TokenizerPipeline> bert(const std::string& name, const std::string& config = "") {
  const std::string dir = test::scratch_dir("encode_pair_" + name);
  test::write_text(dir + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\n.\nun\n##aff\n##able\n");
  if (!config.empty()) test::write_text(dir + "/tokenizer_config.json", config);
  return load_folder_tokenizer(dir);
}

TEST(EncodePair, BertFramesAPairWithTokenTypes) {
  const auto tok = bert("uncased");
  const Encoding e = tok->encode_pair("The cats", std::string_view("unaffable."));
  EXPECT_EQ(e.ids, Ids({2, 5, 6, 8, 3, 10, 11, 12, 9, 3}));
  EXPECT_EQ(e.type_ids, Ids({0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
  EXPECT_EQ(e.sequence_ids, Ids({-1, 0, 0, 0, -1, 1, 1, 1, 1, -1}));
  EXPECT_EQ(e.special, std::vector<bool>({true, false, false, false, true, false, false, false, false, true}));
  EXPECT_EQ(e.labels, std::vector<std::string>({"[CLS]", "the", "cat", "##s", "[SEP]", "un", "##aff", "##able", ".", "[SEP]"}));
  EXPECT_EQ(tok->piece_bytes(8), "s") << "piece_bytes drops the ## of a continuation";
  const Encoding single = tok->encode_pair("the [MASK] sat");
  EXPECT_EQ(single.ids, Ids({2, 5, 4, 7, 3}));
  EXPECT_EQ(single.sequence_ids, Ids({-1, 0, 0, 0, -1})) << "a special token written in the text belongs to the text";
  EXPECT_TRUE(single.special[2]);
  EXPECT_EQ(tok->encode("the [MASK] sat"), single.ids);
}

TEST(EncodePair, TokenizerConfigSettingsApply) {
  EXPECT_EQ(bert("cased", R"({"do_lower_case": false})")->encode("The cat"), Ids({2, 1, 6, 3})) << "\"The\" is unknown when cased";
  EXPECT_EQ(bert("named", R"({"cls_token": {"content": "[SEP]"}, "sep_token": "[CLS]"})")->encode("cat"), Ids({3, 6, 2}));
  EXPECT_THROW(bert("bad", R"({"do_lower_case": "yes"})"), FormatError);
}

json roberta_style(const json& post) {
  return {{"added_tokens", json::array({{{"id", 0}, {"content", "<s>"}, {"special", true}},
                                        {{"id", 2}, {"content", "</s>"}, {"special", true}}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", {{"type", "WhitespaceSplit"}}},
          {"post_processor", post},
          {"model", {{"type", "WordPiece"}, {"unk_token", "<unk>"}, {"max_input_chars_per_word", 100},
                     {"vocab", {{"<s>", 0}, {"<unk>", 1}, {"</s>", 2}, {"a", 3}, {"b", 4}}}}}};
}

std::unique_ptr<TokenizerPipeline> load(const std::string& name, const json& j) {
  const std::string path = test::scratch_dir("encode_pair_json_" + name) + "/tokenizer.json";
  test::write_text(path, j.dump());
  return load_tokenizer_json(path);
}

TEST(EncodePair, RobertaTemplatesAndNoPairForm) {
  const auto roberta = load("roberta", roberta_style({{"type", "RobertaProcessing"}, {"sep", {"</s>", 2}}, {"cls", {"<s>", 0}}}));
  const Encoding e = roberta->encode_pair("a", std::string_view("b b"));
  EXPECT_EQ(e.ids, Ids({0, 3, 2, 2, 4, 4, 2}));
  EXPECT_EQ(e.type_ids, Ids({0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(e.sequence_ids, Ids({-1, 0, -1, -1, 1, 1, -1}));

  const auto plain = load("plain", roberta_style(nullptr));
  const Encoding p = plain->encode_pair("a", std::string_view("b"));
  EXPECT_EQ(p.ids, Ids({3, 4}));
  EXPECT_EQ(p.type_ids, Ids({0, 1})) << "no post-processor: A then B, types 0 and 1";

  json only_single = {{"type", "TemplateProcessing"},
                      {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
                      {"pair", json::array()},
                      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {0}}, {"tokens", {"<s>"}}}}}}};
  const auto llama_like = load("single_only", roberta_style(only_single));
  EXPECT_EQ(llama_like->encode("a b"), Ids({0, 3, 4}));
  EXPECT_THROW(llama_like->encode_pair("a", std::string_view("b")), InputError);
  only_single["special_tokens"]["<s>"]["ids"] = {99};
  EXPECT_THROW(load("out_of_range", roberta_style(only_single)), FormatError);
}

TEST(UnicodeText, IcuOperations) {
  EXPECT_EQ(unicode_normalize("e\u0301", NormalForm::nfc), "\u00e9");
  EXPECT_EQ(unicode_normalize("\u00e9", NormalForm::nfd), "e\u0301");
  EXPECT_EQ(unicode_normalize("\ufb01\u2460", NormalForm::nfkc), "fi1");
  EXPECT_EQ(unicode_lowercase("\u0130\u03a3A"), "i\u0307\u03c3a") << "full mapping, no final-sigma context";
  EXPECT_TRUE(unicode_is_white_space(0x3000));
  EXPECT_FALSE(unicode_is_white_space(0x200B));
  EXPECT_TRUE(unicode_is_punctuation(0x3002));
  EXPECT_TRUE(unicode_is_other(0xAD));
  EXPECT_EQ(grapheme_ends("e\u0301x\U0001F44D\U0001F3FD"), std::vector<size_t>({3, 4, 12}));
  EXPECT_TRUE(grapheme_ends("").empty());
}

TEST(UnicodeText, CorruptCharsmapsFindNoRuleInsteadOfReadingOutside) {
  EXPECT_THROW(PrecompiledCharsMap(std::string("\x08\x00\x00", 3), "x"), FormatError);
  EXPECT_THROW(PrecompiledCharsMap(std::string("\x08\x00\x00\x00\x01\x02", 6), "x"), FormatError);
  // One unit whose offset points far past the array, then strings that are not a rule's.
  std::string blob("\x04\x00\x00\x00", 4);
  blob += std::string("\x00\xFC\xFF\xFF", 4);
  blob += std::string("z\0", 2);
  const PrecompiledCharsMap map(blob, "x");
  EXPECT_EQ(map.normalize_graphemes("abc \u00e9"), "abc \u00e9");
  EXPECT_EQ(map.longest_rule("abc", 0).second, 0u);
}

}  // namespace
}  // namespace hs
