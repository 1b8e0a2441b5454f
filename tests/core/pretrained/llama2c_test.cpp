// llama2.c checkpoints and tokenizer.bin: the real stories260K model (greedy text, tokenizer,
// map properties) and corrupt, truncated and mismatched files (clear FormatError, no crash).
#include <gtest/gtest.h>

#include <cstring>

#include "core/model/llama2c_checkpoint.h"
#include "core/model/model_request.h"
#include "core/model/transformer_session.h"
#include "core/text/llama2c_tokenizer.h"
#include "core/util/errors.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

struct Stories {
  std::string model = test::model_file("stories260K/stories260K.bin");
  std::string tokenizer = test::model_file("stories260K/tok512.bin");
  bool present() const { return !model.empty() && !tokenizer.empty(); }
};

#define REQUIRE_STORIES(s)                                                                                      \
  Stories s;                                                                                                    \
  if (!s.present()) GTEST_SKIP() << "stories260K not found under " << test::models_dir()                        \
                                 << " (set HEADSCOPE_MODELS_DIR to the folder holding stories260K/)"

// The 200 greedy ids after BOS documented in stories260K/PROVENANCE.md.
const std::vector<int> kGreedyFromBos = {
    403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395, 317, 426, 338, 401, 396, 267, 337, 410, 408, 419,
    292, 411, 322, 265, 282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352, 266, 268, 388, 426, 338, 391,
    266, 267, 337, 335, 312, 432, 398, 312, 286, 267, 414, 270, 333, 415, 426, 13,  438, 310, 439, 419, 357, 336, 432,
    313, 438, 310, 432, 278, 316, 439, 419, 298, 414, 267, 265, 282, 295, 433, 426, 436, 317, 286, 296, 418, 269, 279,
    292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400, 426, 338, 336, 432, 313, 442, 391, 267, 337, 335, 364,
    420, 268, 388, 432, 398, 359, 280, 303, 439, 413, 272, 417, 264, 312, 426, 436, 13,  438, 310, 286, 296, 418, 269,
    279, 292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400, 426, 338, 336, 432, 313, 442, 439, 423, 262, 304,
    420, 422, 432, 317, 426, 359, 279, 292, 416, 439, 413, 409, 416, 327, 263, 415, 294, 267, 400, 426, 436, 13,  438,
    310, 279, 292, 416, 439, 413, 391, 267, 281, 421, 427, 311, 357, 432, 384, 358};

// The first 464 bytes of the decoded text, as karpathy/llama2.c's test_all.py expects.
const char* kGreedyText =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a "
    "big, red ball. She wanted to play with it, but it was too high.\nLily's mom said, \"Lily, let's go to the park.\" "
    "Lily was sad and didn't know what to do. She said, \"I want to play with your ball, but I can't find it.\"\nLily "
    "was sad and didn't know what to do. She said, \"I'm sorry, Lily. I didn't know what to do.\"\nLily didn't want to "
    "help her mom, so she";

ModelRequest stories_request(const Stories& s, const std::string& sentence, int generate = 0) {
  ModelRequest r;
  r.model_path = s.model;
  r.tokenizer = s.tokenizer;
  r.sentence = sentence;
  r.generate = generate;
  return r;
}

TEST(Llama2c, GreedyFromBosReproducesTheDocumentedStory) {
  REQUIRE_STORIES(s);
  const AttentionRun run = run_request(stories_request(s, "", 200));
  ASSERT_EQ(run.token_ids.size(), 201u);
  EXPECT_EQ(run.token_ids[0], 1) << "an empty sentence is BOS alone";
  EXPECT_EQ(run.prompt_tokens, 1);
  for (size_t i = 0; i < kGreedyFromBos.size(); ++i)
    ASSERT_EQ(run.token_ids[i + 1], kGreedyFromBos[i]) << "generated token " << i << " differs";
  const Llama2cTokenizer tok(s.tokenizer, 512);
  EXPECT_EQ(tok.decode(run.token_ids), kGreedyText);
  // The prediction after each position is the next generated token.
  for (size_t t = 0; t + 1 < run.token_ids.size(); ++t)
    ASSERT_EQ(run.next_token_ids[t], run.token_ids[t + 1]) << "position " << t;
}

TEST(Llama2c, ModelInfoDescribesStories260K) {
  REQUIRE_STORIES(s);
  const AttentionRun run = run_request(stories_request(s, "Lily"));
  const ModelInfo& i = run.info;
  EXPECT_EQ(i.kind, "llama2c");
  EXPECT_EQ(i.name, "stories260K");
  EXPECT_EQ(i.d_model, 64);
  EXPECT_EQ(i.n_heads, 8);
  EXPECT_EQ(i.n_kv_heads, 4);
  EXPECT_EQ(i.d_head, 8);
  EXPECT_EQ(i.n_layers, 5);
  EXPECT_TRUE(i.causal);
  EXPECT_EQ(i.vocab_size, 512);
  EXPECT_EQ(i.param_count, 64 * 64 * 2 + 32 * 64 * 2);  // wq, wo [64, 64]; wk, wv [32, 64]
  EXPECT_EQ(i.total_params, 260032);                    // (1,056,540 - 28) / 4 minus the unused RoPE tables
}

TEST(Llama2c, TokenizerMatchesRunC) {
  REQUIRE_STORIES(s);
  const Llama2cTokenizer tok(s.tokenizer, 512);
  EXPECT_EQ(tok.encode(""), std::vector<int>({1}));
  // BOS, then " Once", " upon", " a", " time", "," as the greedy story shows.
  EXPECT_EQ(tok.encode("Once upon a time,"), std::vector<int>({1, 403, 407, 261, 378, 432}));
  // "é" is a piece of its own (id 485); a character with no piece falls back to its UTF-8
  // bytes + 3 (the dog emoji is F0 9F 90 B6).
  EXPECT_EQ(tok.encode("é"), std::vector<int>({1, 410, 485}));
  EXPECT_EQ(tok.encode("\xF0\x9F\x90\xB6"), std::vector<int>({1, 410, 0xF0 + 3, 0x9F + 3, 0x90 + 3, 0xB6 + 3}));
  EXPECT_EQ(tok.label(1), "<s>");
  EXPECT_EQ(tok.label(403), "\xE2\x96\x81" "Once");  // leading space shown as ▁
  EXPECT_EQ(tok.label(13), "\xE2\x86\xB5");          // <0x0A>: newline shown as ↵
  EXPECT_EQ(tok.label(0xF0 + 3), "<0xF0>");          // part of a character: shown as its byte
  EXPECT_EQ(tok.decode(tok.encode("Lily's mom said, \"hi\" to the café")), "Lily's mom said, \"hi\" to the café");
}

TEST(Llama2c, MapsAreCausalDistributions) {
  REQUIRE_STORIES(s);
  const AttentionRun run = run_request(stories_request(s, "The dog ran to the park.", 5));
  const int T = run.n_tokens();
  ASSERT_EQ(run.n_layers(), 5);
  ASSERT_EQ(run.n_heads(), 8);
  ASSERT_EQ(run.tokens.size(), run.token_ids.size());
  ASSERT_EQ(run.next_tokens.size(), size_t(T));
  for (int l = 0; l < 5; ++l)
    for (int h = 0; h < 8; ++h) {
      const Map& a = run.attention[size_t(l)][size_t(h)];
      ASSERT_EQ(a.rows(), T);
      for (int i = 0; i < T; ++i) {
        EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-5f) << "layer " << l << " head " << h << " row " << i;
        for (int j = i + 1; j < T; ++j) ASSERT_EQ(a(i, j), 0.0f) << "layer " << l << " head " << h << " cell " << i << "," << j;
      }
    }
}

TEST(Llama2c, TooLongForTheModelIsAnInputError) {
  REQUIRE_STORIES(s);
  try {
    run_request(stories_request(s, "Lily", 600));
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at most 512 positions"), std::string::npos) << e.what();
  }
}

// Issue 22: a 3000-word text unloaded the model in the app. With fit_context (the app's, and
// --fit-context) it is cut to the first tokens the model reads, and the run says so.
TEST(Llama2c, AFittedTextIsCutToTheContextWithANote) {
  REQUIRE_STORIES(s);
  std::string text;
  for (int i = 0; i < 300; ++i) text += "Lily saw a big red ball. ";
  ModelRequest r = stories_request(s, text);
  EXPECT_THROW(run_request(r), InputError) << "without fit_context a text past the context is refused";
  r.fit_context = true;
  const AttentionRun cut = run_request(r);
  EXPECT_EQ(cut.n_tokens(), 512);
  ASSERT_EQ(cut.notes.size(), 1u);
  EXPECT_NE(cut.notes[0].find("the first 512 tokens are shown"), std::string::npos) << cut.notes[0];
  r.generate = 12;  // room is kept for the tokens to generate
  const AttentionRun with_generated = run_request(r);
  EXPECT_EQ(with_generated.n_tokens(), 512);
  EXPECT_EQ(with_generated.prompt_tokens, 500);
  // The maps of the kept tokens are those of the same tokens given alone (causal: nothing later counts).
  ModelRequest same = stories_request(s, "");
  same.input_ids = std::vector<int>(cut.token_ids.begin(), cut.token_ids.begin() + 40);
  const AttentionRun head = run_request(same);
  EXPECT_LT((head.attention[2][3] - cut.attention[2][3].topLeftCorner(40, 40)).cwiseAbs().maxCoeff(), 1e-5f);
  // A text that fits gets no note.
  r.generate = 0;
  r.sentence = "Lily";
  EXPECT_TRUE(run_request(r).notes.empty());
}

// --- corrupt files (no real model needed) ---

std::vector<uint8_t> header(std::vector<int32_t> v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::string expect_format_error(const std::string& path) {
  try {
    load_llama2c(path);
  } catch (const FormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << ": expected a FormatError";
  return "";
}

TEST(Llama2cCorrupt, HeaderProblemsNameTheField) {
  const std::string dir = test::scratch_dir("llama2c_header");
  struct Case {
    std::vector<int32_t> header;
    const char* expect;
  } cases[] = {
      {{0, 16, 1, 2, 2, 10, 8}, "field dim is 0"},
      {{8, -3, 1, 2, 2, 10, 8}, "field hidden_dim is -3"},
      {{8, 16, 1, 2, 3, 10, 8}, "field n_kv_heads is 3"},
      {{8, 16, 1, 3, 3, 10, 8}, "n_heads (3) must divide dim (8)"},
      {{8, 16, 1, 4, 3, 10, 8}, "n_kv_heads (3) must divide n_heads (4)"},
      {{8, 16, 1, 8, 8, 10, 8}, "head size 1 must be even"},
      {{8, 16, 1, 2, 2, 0, 8}, "field vocab_size is 0"},
      {{8, 16, 2000000000, 2, 2, 10, 8}, "field n_layers is 2000000000"},
      {{0x616b3432, 2, 0, 0, 0, 0, 0}, "version 2 (magic \"ak42\") is not supported"},
  };
  int n = 0;
  for (const Case& c : cases) {
    const std::string path = dir + "/bad" + std::to_string(n++) + ".bin";
    test::write_bytes(path, header(c.header));
    const std::string msg = expect_format_error(path);
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << "got: " << msg << "\nexpected to contain: " << c.expect;
  }
  const std::string tiny = dir + "/tiny.bin";
  test::write_bytes(tiny, {1, 2, 3});
  EXPECT_NE(expect_format_error(tiny).find("too short for a llama2.c header"), std::string::npos);
}

TEST(Llama2cCorrupt, SizeMustMatchTheHeaderExactly) {
  // dim 4, hidden 6, 1 layer, 2 heads, 1 kv head, vocab 5, seq_len 3: head 2, kv_dim 2.
  const int64_t floats = 5 * 4 + 4 + 16 + 2 * 2 * 4 + 16 + 4 + 3 * 6 * 4 + 4 + 2 * 3 * 1;
  const std::string dir = test::scratch_dir("llama2c_size");
  std::vector<uint8_t> good = header({4, 6, 1, 2, 1, 5, 3});
  good.resize(good.size() + size_t(floats) * 4, 0);
  test::write_bytes(dir + "/good.bin", good);
  const auto model = load_llama2c(dir + "/good.bin");
  EXPECT_EQ(model->info().vocab_size, 5);

  std::vector<uint8_t> truncated(good.begin(), good.end() - 4);
  test::write_bytes(dir + "/truncated.bin", truncated);
  std::string msg = expect_format_error(dir + "/truncated.bin");
  EXPECT_NE(msg.find("implies exactly " + std::to_string(good.size()) + " (truncated?)"), std::string::npos) << msg;

  std::vector<uint8_t> longer = good;
  longer.resize(good.size() + 4);
  test::write_bytes(dir + "/long.bin", longer);
  EXPECT_NE(expect_format_error(dir + "/long.bin").find("implies exactly"), std::string::npos);

  // A negative vocab_size means an untied classifier follows: 5 x 4 more floats.
  std::vector<uint8_t> untied = header({4, 6, 1, 2, 1, -5, 3});
  untied.resize(untied.size() + size_t(floats + 20) * 4, 0);
  test::write_bytes(dir + "/untied.bin", untied);
  EXPECT_EQ(load_llama2c(dir + "/untied.bin")->info().total_params, floats - 6 + 20);
  test::write_bytes(dir + "/untied_short.bin", good);  // tied-size body with a negative vocab
  std::vector<uint8_t> wrong = good;
  const int32_t neg = -5;
  std::memcpy(wrong.data() + 20, &neg, 4);
  test::write_bytes(dir + "/untied_short.bin", wrong);
  EXPECT_NE(expect_format_error(dir + "/untied_short.bin").find("vocab_size -5"), std::string::npos);

  // Not-a-number weights are refused with their offset.
  std::vector<uint8_t> nan = good;
  const float bad = std::numeric_limits<float>::quiet_NaN();
  std::memcpy(nan.data() + 28 + 8, &bad, 4);
  test::write_bytes(dir + "/nan.bin", nan);
  EXPECT_NE(expect_format_error(dir + "/nan.bin").find("byte offset 36 is not finite"), std::string::npos);
}

std::vector<uint8_t> tokenizer_bytes(const std::vector<std::string>& pieces, int32_t max_len = 8) {
  std::vector<uint8_t> b = header({max_len});
  for (size_t i = 0; i < pieces.size(); ++i) {
    const float score = -float(i);
    const int32_t len = int32_t(pieces[i].size());
    b.insert(b.end(), reinterpret_cast<const uint8_t*>(&score), reinterpret_cast<const uint8_t*>(&score) + 4);
    b.insert(b.end(), reinterpret_cast<const uint8_t*>(&len), reinterpret_cast<const uint8_t*>(&len) + 4);
    b.insert(b.end(), pieces[i].begin(), pieces[i].end());
  }
  return b;
}

std::string tokenizer_error(const std::string& path, int vocab) {
  try {
    Llama2cTokenizer tok(path, vocab);
  } catch (const FormatError& e) {
    return e.what();
  }
  ADD_FAILURE() << path << ": expected a FormatError";
  return "";
}

TEST(Llama2cCorrupt, TokenizerMustMatchTheVocabulary) {
  const std::string dir = test::scratch_dir("llama2c_tokenizer");
  const std::vector<std::string> pieces = {"<unk>", "\n<s>\n", "\n</s>\n", " ", "a", "b", " a", "ab"};
  test::write_bytes(dir + "/tok.bin", tokenizer_bytes(pieces));
  const Llama2cTokenizer tok(dir + "/tok.bin", 8);
  // " " + "a" -> " a" (score -6) beats "a" + "b" -> "ab" (score -7).
  EXPECT_EQ(tok.encode("ab"), std::vector<int>({1, 6, 5}));
  EXPECT_NE(tokenizer_error(dir + "/tok.bin", 9).find("truncated at byte"), std::string::npos);
  EXPECT_NE(tokenizer_error(dir + "/tok.bin", 7).find("bytes left after 7 entries"), std::string::npos);
  std::vector<uint8_t> b = tokenizer_bytes(pieces);
  b.resize(b.size() - 1);
  test::write_bytes(dir + "/cut.bin", b);
  EXPECT_NE(tokenizer_error(dir + "/cut.bin", 8).find("entry 7 bytes"), std::string::npos);
  test::write_bytes(dir + "/neg.bin", tokenizer_bytes(pieces, -1));
  EXPECT_NE(tokenizer_error(dir + "/neg.bin", 8).find("max_token_length is -1"), std::string::npos);
  test::write_bytes(dir + "/nospace.bin", tokenizer_bytes({"<unk>", "<s>", "</s>", "a"}));
  EXPECT_NE(tokenizer_error(dir + "/nospace.bin", 4).find("no \" \" piece"), std::string::npos);
}

}  // namespace
}  // namespace hs

namespace hs {
namespace {

// Every truncation of the real files, and a header with any one field replaced by a hostile
// value, is an hs::Error, never a crash or a huge allocation.
TEST(Llama2cCorrupt, TruncationsAndHostileHeadersOfTheRealFiles) {
  REQUIRE_STORIES(s);
  const std::string dir = test::scratch_dir("llama2c_truncations");
  const std::vector<uint8_t> tok = test::read_bytes(s.tokenizer);
  for (size_t n = 0; n < tok.size(); n += 97) {
    test::write_bytes(dir + "/tok.bin", std::vector<uint8_t>(tok.begin(), tok.begin() + std::ptrdiff_t(n)));
    EXPECT_THROW(Llama2cTokenizer(dir + "/tok.bin", 512), FormatError) << "tokenizer cut to " << n << " bytes";
  }
  const std::vector<uint8_t> model = test::read_bytes(s.model);
  for (size_t n : {size_t(0), size_t(27), size_t(28), size_t(1000), model.size() / 2, model.size() - 1}) {
    test::write_bytes(dir + "/m.bin", std::vector<uint8_t>(model.begin(), model.begin() + std::ptrdiff_t(n)));
    EXPECT_THROW(load_llama2c(dir + "/m.bin"), FormatError) << "checkpoint cut to " << n << " bytes";
  }
  for (int field = 0; field < 7; ++field)
    for (const int32_t value : {0, -1, 1, 3, 1 << 30, INT32_MIN, INT32_MAX}) {
      std::vector<uint8_t> bad = model;
      std::memcpy(bad.data() + 4 * field, &value, 4);
      test::write_bytes(dir + "/h.bin", bad);
      try {
        load_llama2c(dir + "/h.bin");
        ADD_FAILURE() << "field " << field << " = " << value << " was accepted";
      } catch (const Error&) {
      }
    }
}

}  // namespace
}  // namespace hs
