// The synthetic model end to end: deterministic maps, errors for bad requests, and
// ModelRequest's --weights / --input paths.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "core/analysis/head_stats.h"
#include "core/formats/npy.h"
#include "core/formats/safetensors.h"
#include "core/model/embedding.h"
#include "core/model/model_request.h"
#include "core/model/synthetic_model.h"
#include "core/util/errors.h"

namespace hs {
namespace {

SyntheticSpec spec(int d, int H, uint64_t seed) {
  SyntheticSpec s;
  s.attention.d_model = d;
  s.attention.n_heads = H;
  s.seed = seed;
  return s;
}

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "hs_synth_" + std::to_string(::getpid()) + "_" + name;
}

TEST(SyntheticModel, SameSentenceAndSeedGiveIdenticalMaps) {
  const std::string s = "the keys that Priya left on the table were not hers";
  const AttentionRun a = run_synthetic(s, spec(8, 4, 7));
  const AttentionRun b = run_synthetic(s, spec(8, 4, 7), RunOptions{1, false, nullptr});
  ASSERT_EQ(a.n_layers(), 1);
  ASSERT_EQ(a.n_heads(), 4);
  ASSERT_EQ(a.n_tokens(), 11);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(a.attention[0][size_t(h)], b.attention[0][size_t(h)]) << "head " << h;
  EXPECT_EQ(a.output, b.output);
  // A different seed gives different maps (every head).
  const AttentionRun c = run_synthetic(s, spec(8, 4, 8));
  for (int h = 0; h < 4; ++h)
    EXPECT_GT((a.attention[0][size_t(h)] - c.attention[0][size_t(h)]).cwiseAbs().maxCoeff(), 1e-3f) << "head " << h;
  // Fixed numbers: the same on every machine (SplitMix64 + our own Box-Muller, no std distributions).
  EXPECT_NEAR(token_vector("cat", 4, 0)[0], token_vector("cat", 4, 0)[0], 0.0f);
  EXPECT_NE(token_vector("cat", 4, 0)[0], token_vector("cat", 4, 1)[0]);
  EXPECT_NE(token_vector("cat", 4, 0)[0], token_vector("Cat", 4, 0)[0]);
}

TEST(SyntheticModel, RepeatedWordsShareAVectorButNotAPosition) {
  const Map x = embed_tokens({"the", "cat", "the"}, 8, 3);
  const Map pe = positional_encoding(3, 8);
  EXPECT_LE(((x.row(0) - pe.row(0)) - (x.row(2) - pe.row(2))).cwiseAbs().maxCoeff(), 1e-6f);
  EXPECT_GT((x.row(0) - x.row(2)).cwiseAbs().maxCoeff(), 1e-3f);
  // PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...)
  EXPECT_NEAR(pe(2, 0), std::sin(2.0f), 1e-6f);
  EXPECT_NEAR(pe(2, 1), std::cos(2.0f), 1e-6f);
  EXPECT_NEAR(pe(2, 2), std::sin(2.0f / std::pow(10000.0f, 2.0f / 8.0f)), 1e-6f);
}

TEST(SyntheticModel, InfoAndShapes) {
  SyntheticSpec s = spec(12, 3, 0);
  s.attention.causal = true;
  const AttentionRun r = run_synthetic("one, two; three!", s);
  EXPECT_EQ(r.tokens, (std::vector<std::string>{"one", ",", "two", ";", "three", "!"}));
  EXPECT_EQ(r.info.d_model, 12);
  EXPECT_EQ(r.info.n_heads, 3);
  EXPECT_EQ(r.info.n_kv_heads, 3);
  EXPECT_EQ(r.info.d_head, 4);
  EXPECT_TRUE(r.info.causal);
  EXPECT_EQ(r.info.param_count, 4 * 144 + 48);
  EXPECT_EQ(r.output.rows(), 6);
  EXPECT_EQ(r.output.cols(), 12);
  for (const Map& a : r.attention[0]) EXPECT_EQ(a(0, 1), 0.0f);
  // keep_scores records the raw scores too.
  const AttentionRun rs = run_synthetic("a b c", spec(8, 2, 0), RunOptions{0, true, nullptr});
  ASSERT_EQ(rs.scores.size(), 1u);
  ASSERT_EQ(rs.scores[0].size(), 2u);
  EXPECT_EQ(rs.scores[0][1].rows(), 3);
}

TEST(SyntheticModel, BadRequestsAreInputErrors) {
  EXPECT_THROW(run_synthetic("", spec(8, 2, 0)), InputError);
  EXPECT_THROW(run_synthetic("   \n\t ", spec(8, 2, 0)), InputError);
  EXPECT_THROW(run_synthetic("a b", spec(8, 3, 0)), InputError);
  EXPECT_THROW(run_synthetic("a b", spec(0, 1, 0)), InputError);
  EXPECT_THROW(run_synthetic_tokens({}, spec(8, 2, 0)), InputError);
  std::vector<std::string> many(size_t(kMaxTokens) + 1, ".");
  try {
    run_synthetic_tokens(many, spec(8, 2, 0));
    ADD_FAILURE() << "more than kMaxTokens tokens were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(std::to_string(kMaxTokens)), std::string::npos) << e.what();
  }
  AttentionConfig c;
  const AttentionWeights w = init_attention_weights(c, 0);
  EXPECT_THROW(run_attention_layer(Map(0, 8), w, c, {}), InputError);
  EXPECT_THROW(run_attention_layer(Map::Zero(3, 6), w, c, {"0", "1", "2"}), InputError);
}

// Scores past float32 (inputs of 1e30, 1e20) are refused from the output alone: every row the
// softmax cannot normalise is all NaN, and NaN reaches the output; causal or not.
TEST(SyntheticModel, OverflowedScoresAreRefusedFromTheOutput) {
  for (const bool causal : {false, true})
    for (const float value : {1e30f, -1e30f, 1e20f}) {
      AttentionConfig c;
      c.causal = causal;
      const AttentionWeights w = init_attention_weights(c, 0);
      try {
        run_attention_layer(Map::Constant(5, c.d_model, value), w, c, {"0", "1", "2", "3", "4"});
        ADD_FAILURE() << "input " << value << " (causal " << causal << ") was accepted";
      } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("overflow"), std::string::npos) << e.what();
      }
    }
}

TEST(ModelRequest, WeightsAndInputFiles) {
  // A tiny nn.MultiheadAttention state_dict, written with write_safetensors.
  const int d = 4;
  std::map<std::string, std::pair<std::vector<int64_t>, std::vector<float>>> t;
  auto fill = [](size_t n, float k) { std::vector<float> v(n); for (size_t i = 0; i < n; ++i) v[i] = k * float(int(i % 7) - 3); return v; };
  t["in_proj_weight"] = {{3 * d, d}, fill(3 * d * d, 0.1f)};
  t["in_proj_bias"] = {{3 * d}, fill(3 * d, 0.05f)};
  t["out_proj.weight"] = {{d, d}, fill(d * d, 0.2f)};
  t["out_proj.bias"] = {{d}, fill(d, 0.01f)};
  const std::string wpath = temp_path("w.safetensors"), xpath = temp_path("x.npy");
  write_safetensors(wpath, t);
  const std::vector<float> x = fill(5 * d, 0.3f);
  write_npy(xpath, x.data(), {5, d});

  ModelRequest req;
  req.weights = wpath;
  req.input_npy = xpath;
  req.attention.n_heads = 2;
  const AttentionRun r = run_request(req);
  EXPECT_EQ(r.tokens, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
  EXPECT_EQ(r.info.d_model, d);
  EXPECT_EQ(r.info.kind, "weights");
  EXPECT_EQ(r.info.param_count, 4 * d * d + 4 * d);

  req.attention.n_heads = 3;  // does not divide the file's d_model 4
  try {
    run_request(req);
    ADD_FAILURE() << "heads 3 with d_model 4 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "heads (3) must divide d_model (4)");
  }
  req.attention.n_heads = 2;
  req.attention.n_kv_heads = 1;  // a state_dict is plain multi-head attention
  EXPECT_THROW(run_request(req), InputError);
  req.attention.n_kv_heads = 0;

  // Input width must equal d_model; both inputs at once, or none, are errors.
  const std::string wide = temp_path("wide.npy");
  write_npy(wide, x.data(), {4, 5});
  req.input_npy = wide;
  EXPECT_THROW(run_request(req), InputError);
  req.input_npy = xpath;
  req.sentence = "hello";
  EXPECT_THROW(prepare(req), InputError);
  req.sentence.clear();
  req.input_npy.clear();
  EXPECT_THROW(prepare(req), InputError);

  // bias=False state_dict: no bias tensors, counted without them.
  t.erase("in_proj_bias");
  t.erase("out_proj.bias");
  write_safetensors(wpath, t);
  req.input_npy = xpath;
  EXPECT_EQ(run_request(req).info.param_count, 4 * d * d);
  std::remove(wpath.c_str());
  std::remove(xpath.c_str());
  std::remove(wide.c_str());
}

}  // namespace
}  // namespace hs
