// Head ablation (core/analysis/head_ablation.h) on a small random Llama-family model: knocking out
// a head whose output projection is zero changes nothing, any other head changes something,
// mean-ablating a head whose context is constant changes nothing, progress can cancel, and a
// request without a language model is refused.
#include "core/analysis/head_ablation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/model/context_editor.h"
#include "core/model/llama_forward.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr int kLayers = 2, kHeads = 4, kHead = 4, kD = 16;

// zero_wo_head: (layer, head) whose columns of the output projection are 0 (-1: none).
// zero_wv_head: a key/value head whose value projection is 0 in layer 0, so the contexts of query
// heads reading it are constantly 0 (-1: none).
std::unique_ptr<LlamaModel> model(int zero_layer, int zero_wo_head, int zero_wv_head = -1) {
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  auto m = [&](int64_t r, int64_t k) {
    Map x(r, k);
    for (Eigen::Index i = 0; i < x.size(); ++i) x.data()[i] = normal(rng);
    return x;
  };
  LlamaConfig c;
  c.d_model = kD;
  c.hidden = 24;
  c.n_layers = kLayers;
  c.n_heads = kHeads;
  c.n_kv_heads = 2;
  c.d_head = kHead;
  c.vocab = 20;
  c.max_positions = 64;
  LlamaWeights w;
  w.embedding = m(c.vocab, kD) * 3.0f;
  for (int l = 0; l < kLayers; ++l) {
    LlamaLayer L;
    L.attn_norm = Vec::Ones(kD);
    L.wq = m(kHeads * kHead, kD) * 2.0f;
    L.wk = m(2 * kHead, kD) * 2.0f;
    Map wv = m(2 * kHead, kD);
    if (l == 0 && zero_wv_head >= 0) wv.middleRows(zero_wv_head * kHead, kHead).setZero();
    L.wv = wv;
    Map wo = m(kD, kHeads * kHead);  // [d, H*dh]: column block h is head h's share
    if (l == zero_layer && zero_wo_head >= 0) wo.middleCols(zero_wo_head * kHead, kHead).setZero();
    L.wo = wo;
    L.ffn_norm = Vec::Ones(kD);
    L.w1 = m(c.hidden, kD);
    L.w2 = m(kD, c.hidden);
    L.w3 = m(c.hidden, kD);
    w.layers.push_back(std::move(L));
  }
  w.final_norm = Vec::Ones(kD);
  ModelInfo info;
  info.kind = info.family = "llama";
  return std::make_unique<LlamaModel>(c, std::move(w), info);
}

const std::vector<int> kIds = {1, 5, 9, 3, 5, 9, 12, 0, 7, 3};

TEST(HeadAblation, AHeadWithAZeroOutputProjectionChangesNothing) {
  const auto m = model(1, 2);
  for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    AblationOptions o;
    o.mode = mode;
    const HeadAblation a = ablate_heads(*m, kIds, o);
    ASSERT_EQ(a.n_layers(), kLayers);
    ASSERT_EQ(a.n_heads(), kHeads);
    ASSERT_EQ(a.base_logprob.size(), Eigen::Index(kIds.size() - 1));
    EXPECT_TRUE(a.complete);
    EXPECT_GT(a.base_loss, 0.0);
    EXPECT_EQ(a.delta_loss(1, 2), 0.0f) << ablation_mode_name(mode);
    EXPECT_EQ(a.delta_logprob[1][2].cwiseAbs().maxCoeff(), 0.0f) << ablation_mode_name(mode);
    for (int l = 0; l < kLayers; ++l)
      for (int h = 0; h < kHeads; ++h) {
        if (l == 1 && h == 2) continue;
        EXPECT_GT(a.delta_logprob[size_t(l)][size_t(h)].cwiseAbs().maxCoeff(), 1e-6f)
            << ablation_mode_name(mode) << " L" << l << " h" << h << " changes the predictions";
        EXPECT_NEAR(a.delta_loss(l, h), -a.delta_logprob[size_t(l)][size_t(h)].mean(), 1e-5f);
      }
  }
}

TEST(HeadAblation, ZeroAndMeanAgreeWhereTheContextIsAlreadyZero) {
  // Key/value head 1 of layer 0 has a zero value projection: query heads 2 and 3 (groups of 2)
  // output 0 at every position, so zeroing or mean-ablating them changes nothing.
  const auto m = model(-1, -1, 1);
  for (AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    AblationOptions o;
    o.mode = mode;
    const HeadAblation a = ablate_heads(*m, kIds, o);
    EXPECT_EQ(a.delta_loss(0, 2), 0.0f) << ablation_mode_name(mode);
    EXPECT_EQ(a.delta_loss(0, 3), 0.0f) << ablation_mode_name(mode);
    EXPECT_NE(a.delta_loss(0, 1), 0.0f) << ablation_mode_name(mode);
  }
}

TEST(HeadAblation, ProgressCountsAndCancels) {
  const auto m = model(-1, -1);
  AblationOptions o;
  o.threads = 1;  // one thread: heads in layer, head order
  std::vector<int> seen;
  o.progress = [&](int done, int total) {
    EXPECT_EQ(total, kLayers * kHeads);
    seen.push_back(done);
    return done < 3;
  };
  const HeadAblation a = ablate_heads(*m, kIds, o);
  EXPECT_FALSE(a.complete);
  EXPECT_EQ(seen, (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(std::isnan(a.delta_loss(0, 2)));
  EXPECT_TRUE(std::isnan(a.delta_loss(0, 3))) << "not done";
}

TEST(HeadAblation, CancelOnSeveralThreadsKeepsExactlyTheHeadsCounted) {
  const auto m = model(-1, -1);
  for (int threads : {2, 3}) {
    AblationOptions o;
    o.threads = threads;
    int last = 0;
    o.progress = [&](int done, int total) {
      EXPECT_EQ(done, last + 1) << "one call at a time, counting up";
      EXPECT_EQ(total, kLayers * kHeads);
      last = done;
      return done < 5;
    };
    const HeadAblation a = ablate_heads(*m, kIds, o);
    EXPECT_FALSE(a.complete);
    EXPECT_EQ(last, 5);
    int measured = 0;
    for (int l = 0; l < kLayers; ++l)
      for (int h = 0; h < kHeads; ++h) measured += std::isnan(a.delta_loss(l, h)) ? 0 : 1;
    EXPECT_EQ(measured, 5) << threads << " threads";
  }
}

// Zeroes head `head` of layer `layer` during a whole forward pass (the plain definition).
class ZeroHead : public ContextEditor {
 public:
  ZeroHead(int layer, int head) : layer_(layer), head_(head) {}
  void edit_contexts(int layer, Map& contexts) override {
    if (layer == layer_) contexts.middleCols(Eigen::Index(head_) * kHead, kHead).setZero();
  }

 private:
  int layer_, head_;
};

// log p(ids[t+1]) from a whole forward pass, in double.
std::vector<double> whole_logprob(const TransformerModel& m, Observer* editor) {
  const Map logits = m.logits(m.forward(kIds, editor, 1), 1);
  std::vector<double> lp;
  for (size_t t = 0; t + 1 < kIds.size(); ++t) {
    const auto row = logits.row(Eigen::Index(t));
    double sum = 0;
    for (Eigen::Index j = 0; j < row.size(); ++j) sum += std::exp(double(row(j)));
    lp.push_back(double(row(kIds[t + 1])) - std::log(sum));
  }
  return lp;
}

TEST(HeadAblation, LayerByLayerEqualsWholeForwardPasses) {
  // The fast path (rerun from the residual stream entering the layer, heads in parallel) against
  // the definition: one whole forward pass per head with its context zeroed.
  const auto m = model(-1, -1);
  ASSERT_TRUE(m->runs_layers());
  AblationOptions o;
  o.threads = 2;
  const HeadAblation a = ablate_heads(*m, kIds, o);
  ASSERT_TRUE(a.complete);
  const std::vector<double> base = whole_logprob(*m, nullptr);
  for (size_t t = 0; t < base.size(); ++t) EXPECT_NEAR(a.base_logprob(Eigen::Index(t)), base[t], 1e-4) << "t " << t;
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) {
      ZeroHead zero(l, h);
      const std::vector<double> lp = whole_logprob(*m, &zero);
      for (size_t t = 0; t < lp.size(); ++t)
        EXPECT_NEAR(a.delta_logprob[size_t(l)][size_t(h)](Eigen::Index(t)), lp[t] - base[t], 1e-4)
            << "L" << l << " h" << h << " t " << t;
    }
}

// Zeroes a set of heads during a whole forward pass (the plain definition of a group).
class ZeroHeads : public ContextEditor {
 public:
  explicit ZeroHeads(std::vector<HeadRef> heads) : heads_(std::move(heads)) {}
  void edit_contexts(int layer, Map& contexts) override {
    for (const HeadRef& h : heads_)
      if (h.layer == layer) contexts.middleCols(Eigen::Index(h.head) * kHead, kHead).setZero();
  }

 private:
  std::vector<HeadRef> heads_;
};

TEST(HeadAblation, AGroupEqualsWholeForwardPassesWithEveryHeadOfItZeroed) {
  const auto m = model(-1, -1);
  const std::vector<double> base = whole_logprob(*m, nullptr);
  const std::vector<HeadRef> group = {{1, 3}, {0, 1}, {0, 2}};
  const GroupAblation g = ablate_group(*m, kIds, group);
  ZeroHeads zero(group);
  const std::vector<double> lp = whole_logprob(*m, &zero);
  double want_loss = 0;
  for (size_t t = 0; t < lp.size(); ++t) {
    EXPECT_NEAR(g.delta_logprob(Eigen::Index(t)), lp[t] - base[t], 1e-4) << "t " << t;
    want_loss -= (lp[t] - base[t]) / double(lp.size());
  }
  EXPECT_NEAR(g.delta_loss, want_loss, 1e-4);
  EXPECT_EQ(g.delta_measure, g.delta_loss) << "the default measure is the mean loss";
  // A group of one is that head's entry of the sweep, exactly (the same single-threaded path).
  const HeadAblation a = ablate_heads(*m, kIds);
  const GroupAblation one = ablate_group(*m, kIds, {{1, 2}});
  EXPECT_EQ(float(one.delta_loss), a.delta_loss(1, 2));
  EXPECT_EQ((one.delta_logprob - a.delta_logprob[1][2]).cwiseAbs().maxCoeff(), 0.0f);
}

TEST(HeadAblation, AGroupRefusesHeadsOutsideTheModelAndRepeats) {
  const auto m = model(-1, -1);
  EXPECT_THROW(ablate_group(*m, kIds, {}), InputError);
  EXPECT_THROW(ablate_group(*m, kIds, {{2, 0}}), InputError) << "layer 2 of 2";
  EXPECT_THROW(ablate_group(*m, kIds, {{0, 4}}), InputError) << "head 4 of 4";
  EXPECT_THROW(ablate_group(*m, kIds, {{0, 1}, {0, 1}}), InputError) << "listed twice";
}

TEST(HeadAblation, ATargetMeasuresOnePredictionsLogProb) {
  const auto m = model(-1, -1);
  const HeadAblation loss = ablate_heads(*m, kIds);
  // The actual next token at position 4: its change is that position's entry of delta_logprob.
  AblationOptions o;
  o.target = AblationTarget{4, kIds[5]};
  const HeadAblation a = ablate_heads(*m, kIds, o);
  EXPECT_NEAR(a.base_measure, a.base_logprob(4), 1e-6);
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) {
      EXPECT_NEAR(a.delta_measure(l, h), a.delta_logprob[size_t(l)][size_t(h)](4), 1e-5) << "L" << l << " h" << h;
      EXPECT_EQ(a.delta_loss(l, h), loss.delta_loss(l, h)) << "the loss is still reported";
    }
  // After the last token (a continuation): row T-1, which the mean loss never reads.
  o.target = AblationTarget{int(kIds.size()) - 1, 11};
  const GroupAblation g = ablate_group(*m, kIds, {{0, 0}}, o);
  const Map logits = m->logits(m->forward(kIds, nullptr, 1), 1);
  const auto row = logits.row(Eigen::Index(kIds.size()) - 1);
  double sum = 0;
  for (Eigen::Index j = 0; j < row.size(); ++j) sum += std::exp(double(row(j)));
  EXPECT_NEAR(g.base_measure, double(row(11)) - std::log(sum), 1e-5);
  EXPECT_NE(g.delta_measure, 0.0);
  o.target = AblationTarget{int(kIds.size()), 11};
  EXPECT_THROW(ablate_heads(*m, kIds, o), InputError) << "past the last token";
  o.target = AblationTarget{2, 20};
  EXPECT_THROW(ablate_heads(*m, kIds, o), InputError) << "outside the vocabulary of 20";
}

TEST(HeadAblation, AReferenceOfTheSentenceItselfIsTheSentencesMean) {
  const auto m = model(-1, -1);
  AblationOptions o;
  o.mode = AblationMode::mean;
  const HeadAblation own = ablate_heads(*m, kIds, o);
  const ContextMeanSet same = context_means(*m, {kIds});
  EXPECT_EQ(same.positions, int64_t(kIds.size()));
  o.reference = &same;
  const HeadAblation ref = ablate_heads(*m, kIds, o);
  EXPECT_TRUE(ref.reference_mean);
  for (int l = 0; l < kLayers; ++l)
    for (int h = 0; h < kHeads; ++h) EXPECT_NEAR(ref.delta_loss(l, h), own.delta_loss(l, h), 1e-5) << "L" << l << " h" << h;
  // Two texts pool their positions: the mean of [a, b] is not the mean of a's and b's means.
  const std::vector<int> other = {2, 8, 8, 1};
  const ContextMeanSet pooled = context_means(*m, {kIds, other});
  const ContextMeanSet a = context_means(*m, {kIds}), b = context_means(*m, {other});
  const double n = double(kIds.size()), k = double(other.size());
  for (int l = 0; l < kLayers; ++l) {
    const Eigen::RowVectorXf want = ((a.means[size_t(l)].cast<double>() * n + b.means[size_t(l)].cast<double>() * k) / (n + k)).cast<float>();
    EXPECT_LT((pooled.means[size_t(l)] - want).cwiseAbs().maxCoeff(), 1e-5f) << "layer " << l;
  }
  o.reference = &pooled;
  const HeadAblation other_ref = ablate_heads(*m, kIds, o);
  EXPECT_GT((other_ref.delta_loss - own.delta_loss).cwiseAbs().maxCoeff(), 1e-6f) << "another text's mean is another mean";
}

TEST(HeadAblation, RefusesWhatItCannotAblate) {
  const auto m = model(-1, -1);
  EXPECT_THROW(ablate_heads(*m, {4}), InputError) << "one token has no next token";
  ModelRequest r;
  r.sentence = "the cat sat";
  try {
    ablate_heads(r);
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--model"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hs
