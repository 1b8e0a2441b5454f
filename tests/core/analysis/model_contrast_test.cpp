// Two models on one input (core/analysis/model_contrast.h): the next-token agreement against
// values worked out by hand, the pair checks (widths, vocabularies, tokenizations, families,
// fewer heads) on hand-made runs, and the change's properties (diff(A, A) = 0, symmetric, ranks).
#include "core/analysis/model_contrast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/util/errors.h"

namespace hs {
namespace {

// A run of `layers` x `heads` maps over tokens 1..T, each map's row i uniform over keys 0..i
// (causal), with head (0, 0)'s last row moved onto key 0 by `shift`.
AttentionRun pair_run(int layers, int heads, int T, float shift = 0.0f) {
  AttentionRun r;
  r.info.kind = "gguf";
  r.info.family = "llama";
  r.info.name = "m";
  r.info.d_model = 8, r.info.n_layers = layers, r.info.n_heads = heads, r.info.vocab_size = 100;
  r.info.causal = true;
  for (int t = 0; t < T; ++t) r.token_ids.push_back(t + 1), r.tokens.push_back("t" + std::to_string(t + 1));
  r.attention.assign(size_t(layers), std::vector<Map>(size_t(heads)));
  for (auto& layer : r.attention)
    for (Map& m : layer) {
      m = Map::Zero(T, T);
      for (int i = 0; i < T; ++i) m.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
    }
  Map& m = r.attention[0][0];
  m(T - 1, 0) += shift, m(T - 1, T - 1) -= shift;
  return r;
}

std::string message_of(const AttentionRun& a, const AttentionRun& b) {
  try {
    check_model_pair(a, b, "a.gguf", "b.gguf");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(NextTokenAgreement, IdenticalLogitsAgreeWithKlZero) {
  Map logits(3, 4);
  logits << 1, 2, 3, 4, 0, 0, 0, 0, -5, 7, 1, 2;
  const NextTokenAgreement n = next_token_agreement(logits, logits);
  EXPECT_EQ(n.positions, 3);
  EXPECT_EQ(n.top1_matches, 3);
  EXPECT_DOUBLE_EQ(n.match_rate, 1.0);
  EXPECT_DOUBLE_EQ(n.mean_kl, 0.0);
}

TEST(NextTokenAgreement, KlOfTwoTokensByHandAndShiftInvariant) {
  // P_A = (1/2, 1/2), P_B = softmax(0, log 3) = (1/4, 3/4): KL = 1/2 log 2 + 1/2 log(2/3).
  Map a(1, 2), b(1, 2), b_shifted(1, 2);
  a << 0, 0;
  b << 0, float(std::log(3.0));
  b_shifted = b.array() + 100.0f;  // softmax is shift-invariant
  const double want = 0.5 * std::log(2.0) + 0.5 * std::log(2.0 / 3.0);
  EXPECT_NEAR(next_token_agreement(a, b).mean_kl, want, 1e-7);
  EXPECT_NEAR(next_token_agreement(a, b_shifted).mean_kl, want, 1e-5);
  // argmax of A: a tie, the lowest id (0); of B: 1.
  EXPECT_EQ(next_token_agreement(a, b).top1_matches, 0);
  EXPECT_EQ(next_token_agreement(a, b).max_kl_position, 0);
}

TEST(NextTokenAgreement, NoLogitsIsNotMeasuredAndShapesMustMatch) {
  EXPECT_EQ(next_token_agreement(Map(), Map::Zero(2, 3)).positions, 0);
  EXPECT_TRUE(std::isnan(next_token_agreement(Map(), Map()).mean_kl));
  try {
    next_token_agreement(Map::Zero(2, 3), Map::Zero(2, 4));
    FAIL() << "different vocabularies were accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("[2, 3] and [2, 4]"), std::string::npos) << e.what();
  }
}

TEST(NextTokenAgreement, NonFiniteLogitsGiveNanNotAPosition) {
  Map a(2, 2), b(2, 2);
  a << 0, 1, 0, 1;
  b << std::nanf(""), 1, std::nanf(""), 1;
  const NextTokenAgreement n = next_token_agreement(a, b);
  EXPECT_EQ(n.positions, 2);
  EXPECT_TRUE(std::isnan(n.mean_kl));
  EXPECT_TRUE(std::isnan(n.max_kl));
  EXPECT_EQ(n.max_kl_position, -1);
}

TEST(ModelPair, SameRunsGiveZeroEverywhereAndANote) {
  const AttentionRun a = pair_run(2, 3, 5);
  ModelComparison m = check_model_pair(a, a, "x.gguf", "y.gguf");
  const ContrastResult c = contrast_models(a, a, m);
  EXPECT_TRUE(c.models);
  EXPECT_EQ(c.query_rows, 5);
  for (const auto& layer : c.heads)
    for (const HeadChange& h : layer) EXPECT_EQ(h.distance, 0.0f);
  ASSERT_EQ(m.notes.size(), 1u);
  EXPECT_NE(m.notes[0].find("change is 0"), std::string::npos) << m.notes[0];
}

TEST(ModelPair, ChangeIsTheMeanRowTotalVariationAndSymmetric) {
  const AttentionRun a = pair_run(2, 2, 4), b = pair_run(2, 2, 4, 0.2f);
  ModelComparison m = check_model_pair(a, b, "a.gguf", "b.gguf");
  const ContrastResult ab = contrast_models(a, b, m), ba = contrast_models(b, a, m);
  // One row of four moved 0.2 of its weight: TV 0.2 in that row, mean 0.05.
  EXPECT_NEAR(ab.heads[0][0].distance, 0.05f, 1e-7);
  EXPECT_NEAR(ab.heads[0][0].max_row, 0.2f, 1e-7);
  EXPECT_EQ(ab.heads[0][0].max_row_step, 3);
  EXPECT_EQ(ab.heads[0][0].distance, ba.heads[0][0].distance);
  EXPECT_EQ(ab.heads[1][1].distance, 0.0f);
  const std::vector<std::vector<int>> ranks = change_ranks(ab);
  EXPECT_EQ(ranks[0][0], 1);
  EXPECT_EQ(ranks[0][1], 2);  // equal changes: layer, head order
  EXPECT_EQ(ranks[1][1], 4);
}

TEST(ModelPair, FewerLayersOrHeadsCompareTheSharedOnesAndSaySo) {
  const AttentionRun a = pair_run(3, 4, 4), b = pair_run(2, 2, 4);
  ModelComparison m = check_model_pair(a, b, "a.gguf", "b.gguf");
  EXPECT_EQ(m.shared_layers, 2);
  EXPECT_EQ(m.shared_heads, 2);
  ASSERT_FALSE(m.notes.empty());
  EXPECT_NE(m.notes[0].find("only the 2 x 2 layers x heads both have"), std::string::npos) << m.notes[0];
  const ContrastResult c = contrast_models(a, b, m);
  EXPECT_EQ(c.heads.size(), 2u);
  EXPECT_EQ(c.heads[0].size(), 2u);
}

TEST(ModelPair, DifferentWidthsVocabulariesTokensAndFamiliesAreRefused) {
  const AttentionRun a = pair_run(1, 1, 3);
  AttentionRun b = a;
  b.info.d_model = 16;
  EXPECT_NE(message_of(a, b).find("different widths (A: d_model 8, B: d_model 16)"), std::string::npos) << message_of(a, b);
  b = a, b.info.vocab_size = 32000;
  EXPECT_NE(message_of(a, b).find("different vocabularies (A: 100 entries, B: 32000)"), std::string::npos) << message_of(a, b);
  b = a, b.token_ids = {1, 2, 4};
  EXPECT_NE(message_of(a, b).find("tokenize the input differently (A: 3 tokens [1, 2, 3], B: 3 tokens [1, 2, 4])"), std::string::npos)
      << message_of(a, b);
  b = a, b.tokens[1] = "other";
  EXPECT_NE(message_of(a, b).find("give token 2 different text (A: 't2', B: 'other'"), std::string::npos) << message_of(a, b);
  b = a, b.info.family = "gpt2";
  EXPECT_NE(message_of(a, b).find("different families"), std::string::npos) << message_of(a, b);
  b = a, b.token_ids.clear();
  EXPECT_NE(message_of(a, b).find("needs two pretrained checkpoints"), std::string::npos) << message_of(a, b);
}

TEST(ModelPair, Llama2cIsALlamaAndTheSamePathIsTheSameFile) {
  AttentionRun a = pair_run(1, 1, 3), b = a;
  a.info.kind = "llama2c", a.info.family.clear();
  EXPECT_EQ(message_of(a, b), "");
  EXPECT_TRUE(check_model_pair(b, b, "m.gguf", "m.gguf").same_file);
  EXPECT_FALSE(same_file("/nonexistent/a", "/nonexistent/b"));
  EXPECT_TRUE(same_file("/", "/."));
}

}  // namespace
}  // namespace hs
