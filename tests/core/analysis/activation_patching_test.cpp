// Activation patching (core/analysis/activation_patching.h) on a small random Llama-family model:
// which positions are patched, a head whose output projection is zero restores nothing, a patch
// at positions where A and B agree changes nothing, a model run whole (no layer-by-layer runs)
// gives the layered numbers, cancelling keeps what was done, and what cannot be measured is refused.
// The numbers themselves are checked against PyTorch by analysis.patching_vs_torch.
#include "core/analysis/activation_patching.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/llama_forward.h"
#include "core/model/teaching_model.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr int kLayers = 2, kHeads = 4, kHeadWidth = 4, kWidth = 16, kVocab = 24;

// Random weights; `silent`: (layer, head) whose columns of the output projection are 0.
std::shared_ptr<LlamaModel> small_llama(std::pair<int, int> silent = {-1, -1}) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 0.35f);
  const auto random = [&](int64_t rows, int64_t cols, float scale = 1.0f) {
    Map x(rows, cols);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng) * scale;
    return x;
  };
  LlamaConfig c;
  c.d_model = kWidth, c.hidden = 20, c.n_layers = kLayers, c.n_heads = kHeads, c.n_kv_heads = 2, c.d_head = kHeadWidth;
  c.vocab = kVocab, c.max_positions = 32;
  LlamaWeights w;
  w.embedding = random(kVocab, kWidth, 3.0f);
  for (int l = 0; l < kLayers; ++l) {
    LlamaLayer L;
    L.attn_norm = L.ffn_norm = Vec::Ones(kWidth);
    L.wq = random(kHeads * kHeadWidth, kWidth, 2.0f);
    L.wk = random(2 * kHeadWidth, kWidth, 2.0f);
    L.wv = random(2 * kHeadWidth, kWidth);
    Map wo = random(kWidth, kHeads * kHeadWidth);  // [d, H*dh]: column block h is head h's share
    if (l == silent.first) wo.middleCols(silent.second * kHeadWidth, kHeadWidth).setZero();
    L.wo = wo;
    L.w1 = random(c.hidden, kWidth), L.w2 = random(kWidth, c.hidden), L.w3 = random(c.hidden, kWidth);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = Vec::Ones(kWidth);
  ModelInfo info;
  info.kind = info.family = "llama";
  info.name = "small llama";
  return std::make_shared<LlamaModel>(c, std::move(w), info);
}

// The same model seen only whole (as the teaching model is): no layer-by-layer runs; optionally
// an encoder (no next token).
class WholeOnly : public TransformerModel {
 public:
  explicit WholeOnly(std::shared_ptr<const TransformerModel> m, bool encoder = false) : m_(std::move(m)), encoder_(encoder) {}
  const ModelInfo& info() const override { return m_->info(); }
  int max_positions() const override { return m_->max_positions(); }
  Map forward(const std::vector<int>& ids, Observer* observer, int threads) const override { return m_->forward(ids, observer, threads); }
  Map forward_cached(const std::vector<int>& ids, KvCache& cache) const override { return m_->forward_cached(ids, cache); }
  Map logits(const Map& hidden, int threads) const override { return m_->logits(hidden, threads); }
  bool predicts_next_token() const override { return !encoder_; }

 private:
  std::shared_ptr<const TransformerModel> m_;
  bool encoder_;
};

const std::vector<int> kA = {1, 5, 9, 3, 7, 12, 2}, kB = {1, 5, 9, 3, 8, 12, 2};  // position 4 differs
const TargetPair kPair{4, 6};

std::vector<PatchPosition> every_position(int n) {
  std::vector<PatchPosition> out;
  for (int i = 0; i < n; ++i) out.emplace_back(i, i);
  return out;
}

TEST(ActivationPatching, EqualLengthsPatchEveryPositionOtherwiseTheAlignedOnes) {
  bool every = false;
  const std::vector<int> a = {1, 2, 3, 4}, b = {1, 9, 3, 4};
  EXPECT_EQ(patch_positions(align_tokens(a, b), 4, 4, &every), every_position(4));
  EXPECT_TRUE(every);
  // "1 2 3 4" / "1 7 7 3 4": 2 -> 7 replaced, one 7 inserted; the inserted position keeps B's own.
  const std::vector<int> c = {1, 7, 7, 3, 4};
  const std::vector<PatchPosition> want = {{0, 0}, {1, 1}, {2, 3}, {3, 4}};
  EXPECT_EQ(patch_positions(align_tokens(a, c), 4, 5, &every), want);
  EXPECT_FALSE(every);
}

TEST(ActivationPatching, SharesAreTheGapRestored) {
  const auto m = small_llama();
  const HeadPatching p = patch_heads(*m, kA, kB, every_position(7), kPair);
  ASSERT_EQ(p.n_layers(), kLayers);
  ASSERT_EQ(p.n_heads(), kHeads);
  EXPECT_TRUE(p.complete);
  EXPECT_FALSE(p.gap_too_small);
  EXPECT_DOUBLE_EQ(p.logit_diff_a, logit_difference(*m, kA, kPair));
  EXPECT_DOUBLE_EQ(p.logit_diff_b, logit_difference(*m, kB, kPair));
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) {
      const double want = (double(p.logit_diff(l, h)) - p.logit_diff_b) / (p.logit_diff_a - p.logit_diff_b);
      EXPECT_NEAR(p.share(l, h), want, 1e-5) << "L" << l << " h" << h;
    }
}

TEST(ActivationPatching, AHeadWithAZeroOutputProjectionRestoresNothing) {
  const auto m = small_llama({1, 2});
  const HeadPatching p = patch_heads(*m, kA, kB, every_position(7), kPair);
  EXPECT_EQ(p.logit_diff(1, 2), float(p.logit_diff_b));
  EXPECT_EQ(p.share(1, 2), 0.0f);
  EXPECT_NE(p.share(1, 1), 0.0f);  // its neighbour does carry something
}

TEST(ActivationPatching, PositionsWhereTheSentencesAgreeChangeNothing) {
  // A causal model's positions before the first difference have the same contexts in A and B.
  const auto m = small_llama();
  const HeadPatching p = patch_heads(*m, kA, kB, every_position(4), kPair);
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) EXPECT_EQ(p.share(l, h), 0.0f) << "L" << l << " h" << h;
}

TEST(ActivationPatching, AModelRunWholeGivesTheLayeredNumbers) {
  const auto m = small_llama();
  const WholeOnly whole(m);
  const HeadPatching layered = patch_heads(*m, kA, kB, every_position(7), kPair);
  const HeadPatching passes = patch_heads(whole, kA, kB, every_position(7), kPair);
  EXPECT_NEAR(passes.logit_diff_a, layered.logit_diff_a, 1e-5);
  EXPECT_NEAR(passes.logit_diff_b, layered.logit_diff_b, 1e-5);
  EXPECT_LT((passes.logit_diff - layered.logit_diff).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(ActivationPatching, NoGapGivesNoShare) {
  const auto m = small_llama();
  const HeadPatching p = patch_heads(*m, kA, kA, every_position(7), kPair);
  EXPECT_TRUE(p.gap_too_small);
  EXPECT_TRUE(p.share.array().isNaN().all());
  EXPECT_FALSE(p.logit_diff.array().isNaN().any());
}

TEST(ActivationPatching, CancellingKeepsTheHeadsDone) {
  const auto m = small_llama();
  PatchingOptions o;
  o.threads = 1;
  o.progress = [](int done, int total) {
    EXPECT_EQ(total, kLayers * kHeads);
    return done < 3;
  };
  const HeadPatching p = patch_heads(*m, kA, kB, every_position(7), kPair, o);
  EXPECT_FALSE(p.complete);
  EXPECT_EQ((p.logit_diff.array() == p.logit_diff.array()).count(), 3);  // the rest NaN
}

TEST(ActivationPatching, WhatCannotBeMeasuredIsRefused) {
  const auto m = small_llama();
  EXPECT_THROW(patch_heads(*m, kA, kB, {}, TargetPair{4, 4}), InputError);
  EXPECT_THROW(patch_heads(*m, kA, kB, {}, TargetPair{4, kVocab}), InputError);
  EXPECT_THROW(patch_heads(*m, {}, kB, {}, kPair), InputError);
  try {
    patch_heads(WholeOnly(m, true), kA, kB, {}, kPair);
    FAIL() << "an encoder was patched";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("encoder"), std::string::npos) << e.what();
  }
}

TEST(ActivationPatching, AContinuationIsWhatItAddsToTheSentence) {
  const auto tokenizer = teaching_tokenizer();
  const std::vector<int> sat = continuation_ids(*tokenizer, "the cat", " sat on");
  ASSERT_EQ(sat.size(), 2u);
  EXPECT_EQ(tokenizer->label(sat[0]), "sat");
  EXPECT_THROW(continuation_ids(*tokenizer, "the cat", ""), InputError);
}

}  // namespace
}  // namespace hs
