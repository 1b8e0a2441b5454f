// SentenceEncoder (core/model/special_tokens.h) and the encoder folder's tokenizer
// (core/model/encoder_tokenizer.h): what a run records for a sentence or a pair (ids, token types,
// special flags, where sentence B starts), ids given directly marked by the tokenizer, and the
// family's template for a tokenizer that brings no post-processor (a RoBERTa folder with
// vocab.json + merges.txt), with ids from config.json or the vocabulary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/model/encoder_tokenizer.h"
#include "core/text/tokenizer_folder.h"
#include "core/util/errors.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

using nlohmann::json;
using Ids = std::vector<int>;

std::string bert_folder(const std::string& name) {
  const std::string dir = test::scratch_dir("special_tokens_" + name);
  test::write_text(dir + "/vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\ncat\nsat\n##s\n.\n");
  return dir;
}

TEST(SentenceEncoder, PairsGetTypesSpecialsAndTheStartOfB) {
  const SentenceEncoder enc(load_folder_tokenizer(bert_folder("pair")));
  const EncodedText one = enc.encode("the cats", nullptr);
  EXPECT_EQ(one.ids, Ids({2, 5, 6, 8, 3}));
  EXPECT_EQ(one.special, std::vector<bool>({true, false, false, false, true}));
  EXPECT_EQ(one.segment_b_start, -1);
  const std::string b = "sat.";
  const EncodedText pair = enc.encode("the cats", &b);
  EXPECT_EQ(pair.ids, Ids({2, 5, 6, 8, 3, 7, 9, 3}));
  EXPECT_EQ(pair.type_ids, Ids({0, 0, 0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(pair.segment_b_start, 5);
}

TEST(SentenceEncoder, IdsGivenDirectlyAreMarkedByTheTokenizer) {
  const SentenceEncoder enc(load_folder_tokenizer(bert_folder("ids")));
  const EncodedText t = enc.from_ids({2, 5, 3, 6, 3}, {0, 0, 0, 1, 1});
  EXPECT_EQ(t.special, std::vector<bool>({true, false, true, false, true}));
  EXPECT_EQ(t.segment_b_start, 3);
  EXPECT_EQ(enc.from_ids({2, 5, 3}, {}).segment_b_start, -1);
}

// vocab.json + merges.txt (GPT-2's byte-level BPE) adds nothing: a RoBERTa folder gets <s> A </s>
// and <s> A </s></s> B </s> with every type 0, from config.json's ids or the vocabulary's.
TEST(EncoderTokenizer, AFolderWithoutPostProcessorGetsTheFamilyTemplate) {
  for (const bool ids_in_config : {true, false}) {
    SCOPED_TRACE(ids_in_config ? "ids from config.json" : "ids from the vocabulary");
    const std::string dir = test::scratch_dir(std::string("special_tokens_roberta_") + (ids_in_config ? "config" : "vocab"));
    test::write_text(dir + "/vocab.json", R"({"<s>": 0, "<pad>": 1, "</s>": 2, "a": 3, "b": 4, "Ġ": 5, "Ġb": 6})");
    test::write_text(dir + "/merges.txt", "#version: 0.2\nĠ b\n");
    json config = {{"model_type", "roberta"}};
    if (ids_in_config) config.update({{"bos_token_id", 0}, {"eos_token_id", 2}});
    const std::shared_ptr<const SentenceEncoder> enc = load_encoder_tokenizer(dir, HfConfig(dir + "/config.json", config));
    const std::string b = "b";
    const EncodedText pair = enc->encode("a b", &b);
    EXPECT_EQ(pair.ids, Ids({0, 3, 6, 2, 2, 4, 2}));
    EXPECT_EQ(pair.type_ids, Ids({0, 0, 0, 0, 0, 0, 0}));
    EXPECT_EQ(pair.special, std::vector<bool>({true, false, false, true, true, false, true}));
    EXPECT_EQ(pair.segment_b_start, 5);
  }
}

TEST(SentenceEncoder, APairOfADecoderTokenizerIsRefused) {
  const std::string dir = test::scratch_dir("special_tokens_gpt2");
  test::write_text(dir + "/vocab.json", R"({"a": 0, "b": 1})");
  test::write_text(dir + "/merges.txt", "#version: 0.2\n");
  std::unique_ptr<TokenizerPipeline> tok = load_folder_tokenizer(dir);
  tok->post.pair.clear();  // a decoder's template: one text, no pair form
  const SentenceEncoder enc(std::move(tok));
  const std::string b = "b";
  EXPECT_THROW(enc.encode("a", &b), InputError);
}

}  // namespace
}  // namespace hs
