// A layer's heads as one pass (issue 49): run_layers_stacked runs V sequences stacked as [V*T, d]
// rows, one product per weight and attention per sequence; head ablation knocks out a layer's heads
// as such stacked variants (AblationOptions::heads_per_pass 0, the default). Checked against the
// plain paths, which the other ablation tests check against whole forward passes and PyTorch:
//   - every sequence's rows of a stacked run equal run_layers on that sequence alone (different
//     sequences, so a variant attending to another's rows would show), within 1e-4 relative;
//   - every head's loss change, per-token log-prob change and target change equal one head per pass
//     within 1e-4 (zero and mean ablation, the mean loss, a target with every row and with one row),
//     on stories260K (llama2.c .bin, f32), its Q8_0 and Q4_0 GGUF conversions
//     (tests/core/formats/make_gguf_test_files.py) and a random GPT-2-shaped model;
//   - cancelling between the layers of a pass keeps exactly the heads counted.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include "core/analysis/head_ablation.h"
#include "core/model/gpt2_forward.h"
#include "core/model/model_request.h"
#include "core/model/transformer_session.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

std::string stacked_test_models_dir() {
  if (const char* env = std::getenv("HEADSCOPE_MODELS_DIR"); env && *env) return env;
  return HEADSCOPE_MODELS_DIR_DEFAULT;
}

const char* const kStackedSentence = "Once upon a time, there was a little girl named Lily. She liked to play";

// A loaded model and the sentence's ids (the session owns the model).
struct StackedCase {
  std::unique_ptr<Prepared> prepared;
  std::shared_ptr<const TransformerModel> own;  // a model built here (GPT-2)
  const TransformerModel* model = nullptr;
  std::vector<int> ids;
  std::string label;
};

StackedCase stacked_case_of(const ModelRequest& r, const std::string& label) {
  StackedCase c;
  c.label = label;
  c.prepared = prepare(r);
  const auto* session = dynamic_cast<const TransformerSession*>(c.prepared.get());
  if (!session) ADD_FAILURE() << label << ": not a language model";
  else {
    c.model = &session->model();
    c.ids = session->continue_greedily();
  }
  return c;
}

// stories260K (.bin) or "" when the models folder lacks it.
ModelRequest stacked_stories_request() {
  const std::filesystem::path dir = std::filesystem::path(stacked_test_models_dir()) / "stories260K";
  ModelRequest r;
  if (!std::filesystem::exists(dir / "stories260K.bin")) return r;
  r.model_path = (dir / "stories260K.bin").string();
  r.tokenizer = (dir / "tok512.bin").string();
  r.sentence = kStackedSentence;
  return r;
}

Map stacked_random_map(std::mt19937& rng, int rows, int cols, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  Map m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
  return m;
}

Vec stacked_random_vec(std::mt19937& rng, int n, float mean, float scale) {
  std::normal_distribution<float> normal(mean, scale);
  Vec v(n);
  for (Eigen::Index i = 0; i < v.size(); ++i) v(i) = normal(rng);
  return v;
}

// GPT-2's layout with random weights: 3 layers of 4 heads, d 32, vocab 61.
StackedCase stacked_gpt2_case() {
  std::mt19937 rng(11);
  const int d = 32, heads = 4, layers = 3, vocab = 61, positions = 64;
  Gpt2Config c;
  c.d_model = d, c.n_heads = heads, c.n_layers = layers, c.inner = 4 * d, c.vocab = vocab, c.max_positions = positions;
  Gpt2Weights w;
  w.wte = stacked_random_map(rng, vocab, d, 0.5f);
  w.wpe = stacked_random_map(rng, positions, d, 0.3f);
  for (int l = 0; l < layers; ++l) {
    Gpt2Layer L;
    L.ln1_w = stacked_random_vec(rng, d, 1.0f, 0.1f), L.ln1_b = stacked_random_vec(rng, d, 0.0f, 0.1f);
    L.attn_w = stacked_random_map(rng, d, 3 * d, 0.35f), L.attn_b = stacked_random_vec(rng, 3 * d, 0.0f, 0.1f);
    L.proj_w = stacked_random_map(rng, d, d, 0.3f), L.proj_b = stacked_random_vec(rng, d, 0.0f, 0.05f);
    L.ln2_w = stacked_random_vec(rng, d, 1.0f, 0.1f), L.ln2_b = stacked_random_vec(rng, d, 0.0f, 0.1f);
    L.fc_w = stacked_random_map(rng, d, 4 * d, 0.1f), L.fc_b = stacked_random_vec(rng, 4 * d, 0.0f, 0.05f);
    L.out_w = stacked_random_map(rng, 4 * d, d, 0.05f), L.out_b = stacked_random_vec(rng, d, 0.0f, 0.05f);
    w.layers.push_back(std::move(L));
  }
  w.lnf_w = stacked_random_vec(rng, d, 1.0f, 0.1f), w.lnf_b = stacked_random_vec(rng, d, 0.0f, 0.1f);
  ModelInfo info;
  info.kind = "gpt2", info.name = "random gpt2", info.family = "gpt2";
  StackedCase s;
  s.label = "random GPT-2 (d 32, 4 heads, 3 layers)";
  s.own = std::make_shared<const Gpt2Model>(c, std::move(w), info);
  s.model = s.own.get();
  s.ids = {5, 17, 33, 2, 8, 60, 40, 12, 33, 2, 8, 22, 19};
  return s;
}

// Three different sequences of the case's length stacked, against each alone.
void expect_stacked_layers_equal_each_alone(const StackedCase& c) {
  ASSERT_TRUE(c.model && c.model->runs_stacked()) << c.label;
  const int T = int(c.ids.size()), L = c.model->info().n_layers;
  std::vector<int> reversed(c.ids.rbegin(), c.ids.rend()), rotated = c.ids;
  std::rotate(rotated.begin(), rotated.begin() + 3, rotated.end());
  const std::vector<std::vector<int>> seqs = {c.ids, reversed, rotated};
  Map stacked(Eigen::Index(seqs.size()) * T, c.model->info().d_model);  // [3T, d]
  for (size_t s = 0; s < seqs.size(); ++s) stacked.middleRows(Eigen::Index(s) * T, T) = c.model->embed_tokens(seqs[s]);
  c.model->run_layers_stacked(stacked, T, 0, L, nullptr, 1);
  for (size_t s = 0; s < seqs.size(); ++s) {
    Map alone = c.model->embed_tokens(seqs[s]);  // [T, d]
    c.model->run_layers(alone, 0, L, nullptr, 1);
    double worst = 0;
    Eigen::Index wr = 0, wc = 0;
    for (Eigen::Index r = 0; r < T; ++r)
      for (Eigen::Index k = 0; k < alone.cols(); ++k) {
        const double want = alone(r, k), got = stacked(Eigen::Index(s) * T + r, k);
        const double err = std::abs(got - want) / std::max(1.0, std::abs(want));
        if (!(err <= worst)) worst = err, wr = r, wc = k;
      }
    EXPECT_LE(worst, 1e-4) << c.label << ": sequence " << s << " row " << wr << " col " << wc << ": stacked "
                           << stacked(Eigen::Index(s) * T + wr, wc) << ", alone " << alone(wr, wc) << ", relative error " << worst;
  }
}

// Every head's numbers with `per` heads per pass against one head per pass.
void expect_stacked_ablation_equals_one_per_pass(const StackedCase& c, int per) {
  ASSERT_TRUE(c.model) << c.label;
  const int T = int(c.ids.size());
  struct Measure {
    const char* name;
    AblationTarget target;
    AblationLogits logits;
  };
  const Measure measures[] = {{"mean loss", AblationTarget{}, AblationLogits::every_prediction},
                              {"target, every row", AblationTarget{T / 2, c.ids[size_t(T / 2 + 1)]}, AblationLogits::every_prediction},
                              {"last-position target, one row", AblationTarget{T - 1, 7}, AblationLogits::measure_only}};
  for (const AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    for (const Measure& m : measures) {
      AblationOptions one;
      one.mode = mode, one.target = m.target, one.logits = m.logits, one.threads = 2, one.heads_per_pass = 1;
      AblationOptions stacked = one;
      stacked.heads_per_pass = per;
      const HeadAblation a = ablate_heads(*c.model, c.ids, one);
      const HeadAblation b = ablate_heads(*c.model, c.ids, stacked);
      const std::string what = c.label + ", " + ablation_mode_name(mode) + " ablation, " + m.name + ", " +
                               (per ? std::to_string(per) : std::string("a layer's")) + " heads per pass";
      ASSERT_TRUE(a.complete && b.complete) << what;
      EXPECT_EQ(b.base_measure, a.base_measure) << what << ": the intact pass is the same";
      double worst = 0;
      for (int l = 0; l < a.n_layers(); ++l)
        for (int h = 0; h < a.n_heads(); ++h) {
          const double err = std::abs(double(b.delta_measure(l, h)) - double(a.delta_measure(l, h)));
          worst = std::max(worst, err);
          EXPECT_LE(err, 1e-4) << what << ": layer " << l << " head " << h << ": stacked " << b.delta_measure(l, h)
                               << ", one per pass " << a.delta_measure(l, h) << ", error " << err;
          if (b.measure_only) continue;
          EXPECT_NEAR(b.delta_loss(l, h), a.delta_loss(l, h), 1e-4) << what << ": layer " << l << " head " << h << " loss change";
          const Vec& x = b.delta_logprob[size_t(l)][size_t(h)];
          const Vec& y = a.delta_logprob[size_t(l)][size_t(h)];
          ASSERT_EQ(x.size(), y.size()) << what << ": layer " << l << " head " << h;
          for (Eigen::Index t = 0; t < x.size(); ++t)
            EXPECT_NEAR(x(t), y(t), 1e-4) << what << ": layer " << l << " head " << h << " token " << t + 1 << " log-prob change";
        }
      EXPECT_GT(a.delta_measure.cwiseAbs().maxCoeff(), 1e-3f) << what << ": the heads change the measure (the test can fail)";
      std::printf("%s: max |error| %.3g over %d heads\n", what.c_str(), worst, a.n_layers() * a.n_heads());
    }
  }
}

TEST(StackedAblation, StackedLayersEqualEachSequenceAlone) {
  const ModelRequest r = stacked_stories_request();
  if (!r.model_path.empty()) expect_stacked_layers_equal_each_alone(stacked_case_of(r, "stories260K.bin"));
  for (const char* name : {"stories260K_q8_0.gguf", "stories260K_q4_0.gguf"}) {
    const std::string path = test::gguf_test_file(name);
    if (path.empty()) continue;
    ModelRequest g;
    g.model_path = path;
    g.sentence = kStackedSentence;
    expect_stacked_layers_equal_each_alone(stacked_case_of(g, name));
  }
  expect_stacked_layers_equal_each_alone(stacked_gpt2_case());
}

TEST(StackedAblation, EqualsOneHeadPerPassOnStories260K) {
  const ModelRequest r = stacked_stories_request();
  if (r.model_path.empty()) GTEST_SKIP() << "stories260K not found in " << stacked_test_models_dir();
  const StackedCase c = stacked_case_of(r, "stories260K.bin");
  for (const int per : {0, 3}) expect_stacked_ablation_equals_one_per_pass(c, per);
}

TEST(StackedAblation, EqualsOneHeadPerPassOnQuantizedGgufs) {
  for (const char* name : {"stories260K_q8_0.gguf", "stories260K_q4_0.gguf"}) {
    HS_REQUIRE_GGUF_FILE(path, name);
    ModelRequest g;
    g.model_path = path;
    g.sentence = kStackedSentence;
    expect_stacked_ablation_equals_one_per_pass(stacked_case_of(g, name), 0);
  }
}

TEST(StackedAblation, EqualsOneHeadPerPassOnGpt2) {
  const StackedCase c = stacked_gpt2_case();
  for (const int per : {0, 3}) expect_stacked_ablation_equals_one_per_pass(c, per);
}

TEST(StackedAblation, CancelBetweenLayersKeepsExactlyTheHeadsCounted) {
  const ModelRequest r = stacked_stories_request();
  if (r.model_path.empty()) GTEST_SKIP() << "stories260K not found in " << stacked_test_models_dir();
  const StackedCase c = stacked_case_of(r, "stories260K.bin");
  const int L = c.model->info().n_layers, H = c.model->info().n_heads;
  for (const int threads : {1, 2}) {
    // Cancel once the first layer's heads are counted: passes still running stop between layers.
    AblationOptions o;
    o.threads = threads;
    std::atomic<int> last{0}, polls{0};  // progress and the polls run on the worker threads
    o.progress = [&](int done, int) {
      last = done;
      return true;
    };
    o.cancelled = [&] {
      ++polls;
      return last >= H;
    };
    const HeadAblation a = ablate_heads(*c.model, c.ids, o);
    EXPECT_FALSE(a.complete) << threads << " threads";
    EXPECT_GT(polls, L) << threads << " threads: polled between layers";
    int measured = 0;
    for (int l = 0; l < L; ++l)
      for (int h = 0; h < H; ++h) measured += std::isnan(a.delta_loss(l, h)) ? 0 : 1;
    EXPECT_EQ(measured, last.load()) << threads << " threads: the heads counted, no more";
    EXPECT_GE(last, H) << threads << " threads";
    EXPECT_LT(last, L * H) << threads << " threads: stopped before the end";
  }
}

}  // namespace
}  // namespace hs
