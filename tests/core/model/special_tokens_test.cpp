// Post-processor templates of encoder tokenizers (core/model/special_tokens.h): TemplateProcessing,
// BertProcessing, RobertaProcessing and Sequence read from tokenizer.json; sentence pairs filled
// with their type ids, special flags and where sentence B starts; a tokenizer that adds the single
// template itself never gets the specials twice.
#include <gtest/gtest.h>

#include "core/model/special_tokens.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using nlohmann::json;

const json kBertTemplate = json::parse(R"({"type": "TemplateProcessing",
  "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
             {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
  "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
           {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
           {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
  "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]},
                     "[SEP]": {"id": "[SEP]", "ids": [102], "tokens": ["[SEP]"]}}})");

const std::vector<int> kA = {7, 8, 9}, kB = {10, 11};

TEST(PostProcessor, TemplateProcessingFillsPairsWithTypesAndSpecials) {
  const PostProcessor p = PostProcessor::from_json(kBertTemplate, "tokenizer.json: post_processor");
  const EncodedText one = p.apply(kA, nullptr);
  EXPECT_EQ(one.ids, std::vector<int>({101, 7, 8, 9, 102}));
  EXPECT_EQ(one.type_ids, std::vector<int>({0, 0, 0, 0, 0}));
  EXPECT_EQ(one.special, std::vector<bool>({true, false, false, false, true}));
  EXPECT_EQ(one.segment_b_start, -1);
  const EncodedText two = p.apply(kA, &kB);
  EXPECT_EQ(two.ids, std::vector<int>({101, 7, 8, 9, 102, 10, 11, 102}));
  EXPECT_EQ(two.type_ids, std::vector<int>({0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(two.special, std::vector<bool>({true, false, false, false, true, false, false, true}));
  EXPECT_EQ(two.segment_b_start, 5);
  EXPECT_EQ(p.single_prefix(), std::vector<int>({101}));
  EXPECT_EQ(p.single_suffix(), std::vector<int>({102}));
  EXPECT_TRUE(p.is_special(102));
  EXPECT_FALSE(p.is_special(7));
}

TEST(PostProcessor, BertAndRobertaProcessingInsideASequence) {
  const json bert = json::parse(R"({"type": "BertProcessing", "sep": ["[SEP]", 102], "cls": ["[CLS]", 101]})");
  const json roberta = json::parse(R"({"type": "Sequence", "processors": [
      {"type": "ByteLevel", "trim_offsets": true},
      {"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": false}]})");
  const EncodedText b = PostProcessor::from_json(bert, "x").apply(kA, &kB);
  EXPECT_EQ(b.ids, std::vector<int>({101, 7, 8, 9, 102, 10, 11, 102}));
  EXPECT_EQ(b.type_ids, std::vector<int>({0, 0, 0, 0, 0, 1, 1, 1}));
  const EncodedText r = PostProcessor::from_json(roberta, "x").apply(kA, &kB);
  EXPECT_EQ(r.ids, std::vector<int>({0, 7, 8, 9, 2, 2, 10, 11, 2}));
  EXPECT_EQ(r.type_ids, std::vector<int>(9, 0)) << "RoBERTa gives every token type 0";
  EXPECT_EQ(r.segment_b_start, 6) << "sentence B starts after </s></s>";
  EXPECT_EQ(r.special, std::vector<bool>({true, false, false, false, true, true, false, false, true}));
}

TEST(PostProcessor, NoTemplateConcatenatesWithTypesZeroAndOne) {
  const PostProcessor p = PostProcessor::from_json(json(), "x");
  EXPECT_TRUE(p.adds_nothing());
  const EncodedText t = p.apply(kA, &kB);
  EXPECT_EQ(t.ids, std::vector<int>({7, 8, 9, 10, 11}));
  EXPECT_EQ(t.type_ids, std::vector<int>({0, 0, 0, 1, 1}));
  EXPECT_EQ(t.segment_b_start, 3);
  EXPECT_TRUE(PostProcessor::from_json(json::parse(R"({"type": "ByteLevel"})"), "x").adds_nothing());
}

TEST(PostProcessor, RefusesWhatItCannotRead) {
  const auto error_of = [](const char* text) {
    try {
      PostProcessor::from_json(json::parse(text), "tokenizer.json: post_processor");
    } catch (const FormatError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"type": "Mystery"})").find("\"Mystery\" is not supported"), std::string::npos);
  EXPECT_NE(error_of(R"({"type": "BertProcessing", "sep": ["[SEP]"], "cls": ["[CLS]", 101]})").find("sep"), std::string::npos);
  EXPECT_NE(error_of(R"({"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "[X]"}}], "special_tokens": {}})")
                .find("\"[X]\" has no ids"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "C"}}]})").find("neither A nor B"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"type": "TemplateProcessing", "single": [{"Sequence": {"id": "A", "type_id": -1}}]})").find("type_id"),
            std::string::npos);
  // A single template without a pair one: a pair is refused with a message, not a crash.
  const PostProcessor single_only({{TemplatePiece::Kind::special, 5, 0}, {TemplatePiece::Kind::sentence_a, -1, 0}}, {});
  EXPECT_THROW(single_only.apply(kA, &kB), InputError);
}

// A tokenizer whose encode() wraps every text in [CLS] ... [SEP] itself (as core/text's
// tokenizer.json loader does with a TemplateProcessing), or adds nothing.
class StubTokenizer : public SubwordTokenizer {
 public:
  explicit StubTokenizer(bool wraps) : wraps_(wraps) {}
  std::vector<int> encode(std::string_view text) const override {
    std::vector<int> ids;
    if (wraps_) ids.push_back(101);
    for (const char c : text)
      if (c != ' ') ids.push_back(c - 'a' + 7);
    if (wraps_) ids.push_back(102);
    return ids;
  }
  std::string piece_bytes(int id) const override { return std::string(1, char('a' + id - 7)); }
  std::string label(int id) const override { return piece_bytes(id); }
  int vocab_size() const override { return 200; }

 private:
  bool wraps_;
};

TEST(SentenceEncoder, SpecialsAreNeverAddedTwice) {
  const PostProcessor p = PostProcessor::from_json(kBertTemplate, "x");
  const std::string b = "de";
  for (const bool wraps : {false, true}) {
    SCOPED_TRACE(wraps ? "the tokenizer adds [CLS] [SEP] itself" : "the tokenizer adds nothing");
    const SentenceEncoder enc(std::make_shared<StubTokenizer>(wraps), p);
    EXPECT_EQ(enc.encode("abc", nullptr).ids, std::vector<int>({101, 7, 8, 9, 102}));
    const EncodedText pair = enc.encode("abc", &b);
    EXPECT_EQ(pair.ids, std::vector<int>({101, 7, 8, 9, 102, 10, 11, 102}));
    EXPECT_EQ(pair.segment_b_start, 5);
  }
}

TEST(SentenceEncoder, IdsGivenDirectlyAreMarkedByTheTemplate) {
  const SentenceEncoder enc(std::make_shared<StubTokenizer>(false), PostProcessor::from_json(kBertTemplate, "x"));
  const EncodedText t = enc.from_ids({101, 7, 102, 8, 102}, {0, 0, 0, 1, 1});
  EXPECT_EQ(t.special, std::vector<bool>({true, false, true, false, true}));
  EXPECT_EQ(t.segment_b_start, 3);
  EXPECT_EQ(enc.from_ids({101, 7, 102}, {}).segment_b_start, -1);
}

}  // namespace
}  // namespace hs
