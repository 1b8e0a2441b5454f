// Tokenizers built from GGUF metadata (load_gguf_tokenizer), on files that
// tests/core/formats/make_gguf_test_files.py writes as llama.cpp's converter would:
//   - gpt2.gguf from GPT-2's encoder.json / vocab.bpe must tokenize exactly like headscope's
//     GPT-2 tokenizer (itself checked against encoder.py), and label every token the same;
//   - gpt2_reversed.gguf (the same, ids numbered backwards) must give the same pieces;
//   - tok512.gguf from stories260K's tok512.bin (pieces with "▁", <s> and </s> as control tokens,
//     byte pieces typed as bytes) must tokenize exactly like the llama2.c tokenizer;
//   - small vocabularies whose expected ids are worked out by hand below from llama.cpp's rules
//     (src/llama-vocab.cpp) and the pre-tokenizer regexes of each model's tokenizer.json.
#include <gtest/gtest.h>

#include "core/formats/gguf.h"
#include "core/text/gguf_tokenizer.h"
#include "core/text/gpt2_tokenizer.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/util/errors.h"
#include "tests/core/formats/gguf_test_files.h"
#include "tests/core/pretrained/pretrained_test_util.h"

namespace hs {
namespace {

using Ids = std::vector<int>;

std::unique_ptr<SubwordTokenizer> load(const std::string& path) { return load_gguf_tokenizer(GgufFile(path)); }

// Texts both tokenizers must agree on: words, contractions, numbers, punctuation, whitespace runs,
// newlines and tabs, accents, CJK, emoji (byte fallback), the issue-14 strings.
const char* const kTexts[] = {
    "",
    "Once upon a time, there was a little girl named Lily.",
    "Lily saw a cat",
    " leading space",
    "trailing spaces   ",
    "two  spaces and\ttabs\t\tand\nnewlines\n\nend",
    "I'm can't we'll they've she'd you're it's CAPS'LL",
    "In 2024, 3.14159 and 1000000 people; x=42+7*(3-1)",
    "caf\u00e9 na\u00efve r\u00e9sum\u00e9 Z\u00fcrich",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8 \u4e2d\u6587",
    "emoji \U0001F436\U0001F389 ok \U0001F44D\U0001F3FD",
    "half: \u00bd cup, x\u00b2 \u2460\u216b \u0663\u0664 \uff15",
    "a \u180e" "b and a\u00a0\u00a0b",
    "He said: \"don't\"!!! (really?)",
    "def f(x):\n    return x ** 2  # square\n",
};

TEST(GgufTokenizer, Gpt2GgufTokenizesLikeTheGpt2Tokenizer) {
  HS_REQUIRE_GGUF_FILE(path, "gpt2.gguf");
  const std::string vocab = test::model_file("gpt2-tokenizer/encoder.json");
  const std::string merges = test::model_file("gpt2-tokenizer/vocab.bpe");
  ASSERT_FALSE(vocab.empty() || merges.empty()) << "gpt2.gguf exists, so the files it came from do";
  const auto gguf = load(path);
  const auto reference = load_gpt2_tokenizer(vocab, merges);
  ASSERT_EQ(gguf->vocab_size(), reference->vocab_size());
  for (const char* text : kTexts) EXPECT_EQ(gguf->encode(text), reference->encode(text)) << "text: \"" << text << "\"";
  EXPECT_EQ(gguf->encode("x<|endoftext|>y"), (Ids{87, 50256, 88})) << "the control token is cut out whole";
  for (int id = 0; id < gguf->vocab_size(); id += 97) EXPECT_EQ(gguf->label(id), reference->label(id)) << id;
  EXPECT_EQ(gguf->label(50256), "<|endoftext|>");
  EXPECT_EQ(gguf->piece_bytes(2634), "\xC3\xA9");
}

TEST(GgufTokenizer, ReversedIdsTokenizeTheSamePieces) {
  // gpt2_reversed.gguf numbers GPT-2's vocabulary backwards: the same pieces and merges, so the
  // same pieces come out, each with id N-1-i (the merged pieces are found by lookup, not in order).
  HS_REQUIRE_GGUF_FILE(path, "gpt2.gguf");
  HS_REQUIRE_GGUF_FILE(reversed_path, "gpt2_reversed.gguf");
  const auto gguf = load(path);
  const auto reversed = load(reversed_path);
  const int n = gguf->vocab_size();
  ASSERT_EQ(reversed->vocab_size(), n);
  for (const char* text : kTexts) {
    Ids expect = gguf->encode(text);
    for (int& id : expect) id = n - 1 - id;
    EXPECT_EQ(reversed->encode(text), expect) << "text: \"" << text << "\"";
  }
}

TEST(GgufTokenizer, Tok512GgufTokenizesLikeTheLlama2cTokenizer) {
  HS_REQUIRE_GGUF_FILE(path, "tok512.gguf");
  const std::string bin = test::model_file("stories260K/tok512.bin");
  ASSERT_FALSE(bin.empty());
  const auto gguf = load(path);
  const Llama2cTokenizer reference(bin, 512);
  ASSERT_EQ(gguf->vocab_size(), 512);
  for (const char* text : kTexts) EXPECT_EQ(gguf->encode(text), reference.encode(text)) << "text: \"" << text << "\"";
  for (int id = 0; id < 512; ++id) {
    EXPECT_EQ(gguf->label(id), reference.label(id)) << id;
    if (id > 2) {
      EXPECT_EQ(gguf->piece_bytes(id), reference.piece_bytes(id)) << id;
    }
  }
}

// spm_small.gguf: <unk> <s> </s>, <0x00>..<0xFF> (ids 3..258), then ▁ (259, score -1), a (260,
// -2), b (261, -3), ▁a (262, -1.5), ab (263, -1), ▁ab (264, -0.5), c (265, -4), <tag> (266,
// user-defined). Highest-scoring pair first: "▁ab" is ▁ a b -> ▁ ab (-1 beats ▁a's -1.5) -> ▁ab.
TEST(GgufTokenizer, SentencePieceRulesAsLlamaCpp) {
  HS_REQUIRE_GGUF_FILE(path, "spm_small.gguf");
  const auto tok = load(path);
  EXPECT_EQ(tok->encode(""), (Ids{1})) << "BOS only";
  EXPECT_EQ(tok->encode("ab"), (Ids{1, 264}));
  EXPECT_EQ(tok->encode("ab c"), (Ids{1, 264, 259, 265})) << "\"▁c\" is no piece";
  EXPECT_EQ(tok->encode("\u00e9"), (Ids{1, 259, 3 + 0xC3, 3 + 0xA9})) << "byte fallback for é (C3 A9)";
  EXPECT_EQ(tok->encode("<tag>ab"), (Ids{1, 266, 264})) << "user-defined token cut out; the next fragment gets the space";
  EXPECT_EQ(tok->encode("<s>a"), (Ids{1, 1, 262})) << "control tokens are cut out too";
  EXPECT_EQ(tok->encode("a<s>"), (Ids{1, 262, 1}));
  EXPECT_EQ(tok->label(259), "\xE2\x96\x81");
  EXPECT_EQ(tok->label(264), "\xE2\x96\x81" "ab");
  EXPECT_EQ(tok->label(1), "<s>");
  EXPECT_EQ(tok->label(3 + 0xC3), "<0xC3>");
  EXPECT_EQ(tok->piece_bytes(264), " ab");

  HS_REQUIRE_GGUF_FILE(no_prefix, "spm_no_prefix.gguf");
  const auto bare = load(no_prefix);
  EXPECT_EQ(bare->encode("ab"), (Ids{1, 263})) << "add_space_prefix false";
  EXPECT_EQ(bare->encode("<tag>ab"), (Ids{1, 266, 263}));
  EXPECT_EQ(bare->encode(" a"), (Ids{1, 262}));
  HS_REQUIRE_GGUF_FILE(eos, "spm_eos.gguf");
  EXPECT_EQ(load(eos)->encode("a"), (Ids{1, 262, 2})) << "add_eos_token true";
}

// bpe_<pre>.gguf: ids 0..255 are the bytes (GPT-2's byte alphabet), then 256 "12", 257 "123",
// 258 "45", 259 "'s", 260 "Ġ1", 261 "Ġ12", 262 "ab", 263 "aB", 264 "Ab", 265 "½" (C2 BD),
// 266 "Ġa", 267 "xyz" (no merge makes it), 268 <|bos|> (control, the BOS id), 269 <|user|>
// (user-defined). Merges in rank order: Ġ 1, Ġ1 2, 1 2, 12 3, 4 5, ' s, a b, a B, A b, Â ½, Ġ a.
struct PreCase {
  const char* pre;
  Ids x12345, a_s, xyz, aBc;
};

TEST(GgufTokenizer, PreTokenizersAsNamedByTheFile) {
  const PreCase cases[] = {
      // GPT-2 regex: "x" " 12345" (' ?\p{N}+'); Ġ1 (rank 0), Ġ12, then 4 5: Ġ12 3 45.
      // "a" "'s"; "xyz" by bytes; "aBc" whole: a B -> aB, c.
      {"gpt-2", {120, 261, 51, 258}, {97, 259}, {120, 121, 122}, {263, 99}},
      // llama.cpp's default: punctuation runs first, GPT-2's regex, number runs, then [0-9]{3}:
      // "x" " " "123" "45"; "a" "'" "s" (the apostrophe was split off before the contraction).
      {"default", {120, 32, 257, 258}, {97, 39, 115}, {120, 121, 122}, {263, 99}},
      // Llama 3: \p{N}{1,3} -> "x" " " "123" "45"; ignore_merges takes whole pieces ("xyz");
      // BOS added by default.
      {"llama-bpe", {268, 120, 32, 257, 258}, {268, 97, 259}, {268, 267}, {268, 263, 99}},
      // Qwen2: single digits; no BOS.
      {"qwen2", {120, 32, 49, 50, 51, 52, 53}, {97, 259}, {120, 121, 122}, {263, 99}},
      // SmolLM: each digit split off first, then GPT-2's regex ("x " -> "x" " ").
      {"smollm", {120, 32, 49, 50, 51, 52, 53}, {97, 259}, {120, 121, 122}, {263, 99}},
      // Tekken: single digits, words split at case changes ("a" "Bc"), no contraction rule
      // ("'s" is an optional non-letter plus lowercase letters), ignore_merges, BOS.
      {"tekken", {268, 120, 32, 49, 50, 51, 52, 53}, {268, 97, 259}, {268, 267}, {268, 97, 66, 99}},
  };
  for (const PreCase& c : cases) {
    SCOPED_TRACE(c.pre);
    HS_REQUIRE_GGUF_FILE(path, std::string("bpe_") + c.pre + ".gguf");
    const auto tok = load(path);
    EXPECT_EQ(tok->encode("x 12345"), c.x12345);
    EXPECT_EQ(tok->encode("a's"), c.a_s);
    EXPECT_EQ(tok->encode("xyz"), c.xyz);
    EXPECT_EQ(tok->encode("aBc"), c.aBc);
  }
  HS_REQUIRE_GGUF_FILE(missing, "bpe_missing_pre.gguf");
  EXPECT_EQ(load(missing)->encode("x 12345"), (Ids{120, 32, 257, 258})) << "no tokenizer.ggml.pre: llama.cpp's default";
  HS_REQUIRE_GGUF_FILE(gpt2, "bpe_gpt-2.gguf");
  const auto tok = load(gpt2);
  EXPECT_EQ(tok->encode("<|user|>hi<|bos|>"), (Ids{269, 104, 105, 268})) << "special tokens cut out whole";
  EXPECT_EQ(tok->label(268), "<|bos|>");
  EXPECT_EQ(tok->label(266), "\xE2\x96\x81" "a");
  HS_REQUIRE_GGUF_FILE(add_bos, "bpe_add_bos.gguf");
  EXPECT_EQ(load(add_bos)->encode("hi"), (Ids{268, 104, 105})) << "tokenizer.ggml.add_bos_token true";
}

TEST(GgufTokenizer, UnsupportedOrBrokenMetadataIsNamed) {
  const std::pair<const char*, const char*> cases[] = {
      {"bpe_mystery-pre.gguf", "'tokenizer.ggml.pre' is 'mystery-pre', a pre-tokenizer headscope does not know (it knows default, llama3"},
      {"tok_unknown_model.gguf", "'tokenizer.ggml.model' is 'wordpiece-ish', a tokenizer headscope does not read"},
      {"tok_scores_short.gguf", "'tokenizer.ggml.scores' has 1 entries for 2 tokens"},
      {"tok_tokens_not_strings.gguf", "'tokenizer.ggml.tokens' is array of 2 int32 [1, 2]; expected an array of strings"},
      {"tok_duplicate.gguf", "'tokenizer.ggml.tokens' has 'a' twice (ids 0 and 2)"},
      {"tok_bos_out_of_range.gguf", "'tokenizer.ggml.bos_token_id' is 7, outside the vocabulary of 2 tokens"},
      {"tok_no_merges.gguf", "'tokenizer.ggml.merges' is missing"},
      {"types.gguf", "the file has no tokenizer"},
  };
  for (const auto& [name, expect] : cases) {
    HS_REQUIRE_GGUF_FILE(path, name);
    try {
      load(path);
      ADD_FAILURE() << name << " loaded";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << name << ": " << e.what();
    }
  }
}

}  // namespace
}  // namespace hs
