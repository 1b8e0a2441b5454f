// Live typing (issue 21): a run that starts from the previous run's prefix (core/model/prefix_cache.h)
// equals a whole run of the new input, maps, scores, q, k and next-token predictions, for
// stories260K (the real checkpoint), a random GPT-2-shaped model and the synthetic layer, for
// every kind of edit: one token appended, several appended, an edit in the middle, tokens deleted
// at the end, the same input again. Anything that changes the maps otherwise runs whole. A new row
// that is not a distribution is caught on the prefix path too.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>

#include "core/analysis/analysis_cache.h"
#include "core/analysis/head_stats.h"
#include "core/analysis/run_analysis.h"
#include "core/model/checkpoint_cache.h"
#include "core/model/gpt2_forward.h"
#include "core/model/next_token_rows.h"
#include "core/model/prefix_cache.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr double kTol = 1e-5;  // maps, outputs (the brief's bound)
// Scores, q and k before the softmax, relative to max(1, |value|): the new rows' products are
// summed in another order (matrix-vector instead of packed) through every layer before them.
constexpr double kTolScores = 1e-4;

// Labels only ("t<id>"): the GPT-2-shaped model needs no real vocabulary.
class NumberTokenizer : public SubwordTokenizer {
 public:
  explicit NumberTokenizer(int vocab) : vocab_(vocab) {}
  std::vector<int> encode(std::string_view) const override { return {}; }
  std::string piece_bytes(int id) const override { return "t" + std::to_string(id); }
  std::string label(int id) const override { return piece_bytes(id); }
  int vocab_size() const override { return vocab_; }

 private:
  int vocab_;
};

Map random_map(std::mt19937& rng, int rows, int cols, float std) {
  std::normal_distribution<float> n(0.0f, std);
  Map m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = n(rng);
  return m;
}
Vec random_vec(std::mt19937& rng, int n, float mean, float std) {
  return (random_map(rng, n, 1, std).array() + mean).matrix();
}

// GPT-2's layout with random weights (large enough that heads are far from uniform); with
// `nan_token`, that token's embedding is NaN (every row that reads it is not a distribution).
std::shared_ptr<const Gpt2Model> random_gpt2(int d, int heads, int layers, int vocab, int positions,
                                             int nan_token = -1) {
  std::mt19937 rng(5);
  Gpt2Config c;
  c.d_model = d, c.n_heads = heads, c.n_layers = layers, c.inner = 4 * d, c.vocab = vocab, c.max_positions = positions;
  Gpt2Weights w;
  w.wte = random_map(rng, vocab, d, 0.5f);
  w.wpe = random_map(rng, positions, d, 0.3f);
  for (int l = 0; l < layers; ++l) {
    Gpt2Layer L;
    L.ln1_w = random_vec(rng, d, 1.0f, 0.1f), L.ln1_b = random_vec(rng, d, 0.0f, 0.1f);
    L.attn_w = random_map(rng, d, 3 * d, 0.35f), L.attn_b = random_vec(rng, 3 * d, 0.0f, 0.1f);
    L.proj_w = random_map(rng, d, d, 0.1f), L.proj_b = random_vec(rng, d, 0.0f, 0.05f);
    L.ln2_w = random_vec(rng, d, 1.0f, 0.1f), L.ln2_b = random_vec(rng, d, 0.0f, 0.1f);
    L.fc_w = random_map(rng, d, 4 * d, 0.1f), L.fc_b = random_vec(rng, 4 * d, 0.0f, 0.05f);
    L.out_w = random_map(rng, 4 * d, d, 0.05f), L.out_b = random_vec(rng, d, 0.0f, 0.05f);
    w.layers.push_back(std::move(L));
  }
  w.lnf_w = random_vec(rng, d, 1.0f, 0.1f), w.lnf_b = random_vec(rng, d, 0.0f, 0.1f);
  if (nan_token >= 0) w.wte.row(nan_token).setConstant(std::nanf(""));
  ModelInfo info;
  info.kind = "gpt2", info.name = "random gpt2", info.family = "gpt2";
  return std::make_shared<const Gpt2Model>(c, std::move(w), info);
}

// The message of the FormatError `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

double max_diff(const Map& a, const Map& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  double m = 0;
  for (Eigen::Index i = 0; i < a.size(); ++i) {
    const float x = a.data()[i], y = b.data()[i];
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) return INFINITY;  // masked cells: -inf in both
      continue;
    }
    m = std::max(m, std::abs(double(x) - double(y)) / std::max(1.0, std::abs(double(y))));
  }
  return m;
}

void expect_same_run(const AttentionRun& got, const AttentionRun& want, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.token_ids, want.token_ids);
  EXPECT_EQ(got.next_token_ids, want.next_token_ids);
  EXPECT_EQ(got.next_tokens, want.next_tokens);
  EXPECT_EQ(got.prompt_tokens, want.prompt_tokens);
  ASSERT_EQ(got.n_layers(), want.n_layers());
  ASSERT_EQ(got.scores.size(), want.scores.size());
  ASSERT_EQ(got.queries.size(), want.queries.size());
  ASSERT_EQ(got.keys.size(), want.keys.size());
  for (size_t l = 0; l < want.attention.size(); ++l) {
    ASSERT_EQ(got.attention[l].size(), want.attention[l].size());
    for (size_t h = 0; h < want.attention[l].size(); ++h) {
      EXPECT_LE(max_diff(got.attention[l][h], want.attention[l][h]), kTol) << "attention layer " << l << " head " << h;
      if (l < want.scores.size()) {
        EXPECT_LE(max_diff(got.scores[l][h], want.scores[l][h]), kTolScores) << "scores layer " << l << " head " << h;
      }
    }
    if (l < want.queries.size()) {
      EXPECT_LE(max_diff(got.queries[l], want.queries[l]), kTolScores) << "queries layer " << l;
    }
    if (l < want.keys.size()) {
      EXPECT_LE(max_diff(got.keys[l], want.keys[l]), kTolScores) << "keys layer " << l;
    }
  }
  EXPECT_EQ(got.output.size(), want.output.size());
  if (want.output.size() > 0) {
    EXPECT_LE(max_diff(got.output, want.output), kTol) << "output";
  }
}

// One input after another, each with the prefix it shares with the one before.
struct Step {
  std::string what;
  std::vector<int> ids;
  int reused;  // expected PrefixCache::reused (-1: a whole run)
};

std::vector<Step> typing_steps(const std::vector<int>& base) {
  std::vector<int> a = base;                       // T
  std::vector<int> b = a;  b.push_back(7);         // + 1
  std::vector<int> c = b;  c.insert(c.end(), {3, 9, 4, 11, 2});  // + 5
  std::vector<int> d = c;  d[4] = d[4] == 5 ? 6 : 5;  // edit at position 4
  std::vector<int> e = d;  e.resize(e.size() - 3);  // 3 deleted at the end
  std::vector<int> f = {base[0] == 1 ? 2 : 1};     // the first token changes: nothing to reuse
  f.insert(f.end(), e.begin() + 1, e.end());
  return {{"first run", a, -1},
          {"one token appended", b, int(a.size())},
          {"five tokens appended", c, int(b.size())},
          {"edit in the middle", d, 4},
          {"three deleted at the end", e, int(e.size())},
          {"identical input", e, int(e.size())},
          {"first token changed", f, -1},
          {"one appended after a whole run", [&] { auto g = f; g.push_back(8); return g; }(), int(f.size())}};
}

TEST(PrefixCache, Gpt2ShapedRandomModelEqualsWholeRuns) {
  const auto model = random_gpt2(48, 4, 3, 97, 64);
  const auto tok = std::make_shared<const NumberTokenizer>(97);
  for (const bool keep_scores : {false, true}) {
    PrefixCache cache;
    for (const Step& s : typing_steps({5, 17, 33, 2, 8, 61, 40, 12, 90, 1, 14, 22})) {
      RunOptions o;
      o.threads = 1;
      o.keep_scores = keep_scores;
      const AttentionRun whole = TransformerSession(model, tok, s.ids, 0).run(o);
      o.prefix_cache = &cache;
      auto got = std::make_shared<const AttentionRun>(TransformerSession(model, tok, s.ids, 0).run(o));
      EXPECT_EQ(cache.reused, s.reused) << s.what;
      expect_same_run(*got, whole, s.what + (keep_scores ? ", scores kept" : ""));
      cache.keep(got);
    }
  }
}

// assemble_prefix_maps alone: every map is the old run's top-left P x P, 0 (scores: -inf) to its
// right, then the new rows, bit for bit, with the maps split between 1 or 2 threads (large enough
// here that 2 threads are used), for a few new rows and none.
TEST(PrefixCache, AssembledMapsAreThePrefixAndTheNewRowsOnAnyThreadCount) {
  const int L = 2, H = 4, T_old = 300, P = 290;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  auto random = [&](int r, int c) {
    Map m(r, c);
    for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = u(rng);
    return m;
  };
  AttentionRun old;
  old.attention.assign(L, LayerMaps(H));
  old.scores.assign(L, LayerMaps(H));
  for (int l = 0; l < L; ++l) {
    old.queries.push_back(random(T_old, 8));
    for (int h = 0; h < H; ++h) old.attention[l][h] = random(T_old, T_old), old.scores[l][h] = random(T_old, T_old);
  }
  for (const int T : {296, 290}) {
    const int n = T - P;
    CachedRows rows;
    rows.keep_scores = true;
    rows.attention.assign(L, std::vector<Map>(H));
    rows.scores.assign(L, std::vector<Map>(H));
    for (int l = 0; l < L; ++l) {
      rows.queries.push_back(random(n, 8));
      for (int h = 0; h < H; ++h) rows.attention[l][h] = random(n, T), rows.scores[l][h] = random(n, T);
    }
    const std::vector<Map> keys(L, random(T, 8));
    for (const int threads : {1, 2}) {
      SCOPED_TRACE("T " + std::to_string(T) + ", threads " + std::to_string(threads));
      AttentionRun run;
      assemble_prefix_maps(run, old, P, T, rows, true, keys, threads);
      ASSERT_EQ(run.attention.size(), size_t(L));
      for (int l = 0; l < L; ++l) {
        EXPECT_EQ(Map(run.queries[l].topRows(P)), Map(old.queries[l].topRows(P)));
        if (n > 0) EXPECT_EQ(Map(run.queries[l].bottomRows(n)), rows.queries[l]);
        for (int h = 0; h < H; ++h) {
          const Map& a = run.attention[l][h];
          const Map& s = run.scores[l][h];
          ASSERT_EQ(a.rows(), T);
          ASSERT_EQ(a.cols(), T);
          EXPECT_EQ(Map(a.topLeftCorner(P, P)), Map(old.attention[l][h].topLeftCorner(P, P)));
          EXPECT_EQ(Map(s.topLeftCorner(P, P)), Map(old.scores[l][h].topLeftCorner(P, P)));
          if (n > 0) {
            EXPECT_TRUE((a.topRightCorner(P, n).array() == 0.0f).all());
            EXPECT_TRUE((s.topRightCorner(P, n).array() == -std::numeric_limits<float>::infinity()).all());
            EXPECT_EQ(Map(a.bottomRows(n)), rows.attention[l][h]);
            EXPECT_EQ(Map(s.bottomRows(n)), rows.scores[l][h]);
          }
        }
      }
    }
  }
}

TEST(PrefixCache, Gpt2ShapedPrefixRowsAreTheOldRunsAndNewRowsAreComputed) {
  // A regression guard for the assembly: the reused rows are the cached run's, bit for bit.
  const auto model = random_gpt2(32, 2, 2, 50, 32);
  const auto tok = std::make_shared<const NumberTokenizer>(50);
  PrefixCache cache;
  RunOptions o;
  o.prefix_cache = &cache;
  auto first = std::make_shared<const AttentionRun>(TransformerSession(model, tok, {1, 2, 3, 4, 5}, 0).run(o));
  cache.keep(first);
  const AttentionRun next = TransformerSession(model, tok, {1, 2, 3, 4, 5, 6}, 0).run(o);
  EXPECT_EQ(cache.reused, 5);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 2; ++h) {
      const Map& a = next.attention[size_t(l)][size_t(h)];
      EXPECT_EQ(Map(a.topLeftCorner(5, 5)), first->attention[size_t(l)][size_t(h)]);
      EXPECT_NEAR(a.row(5).sum(), 1.0f, 1e-5f);
    }
}

// The prefix path checks only the new rows (the old ones were checked when they were made): a
// new row that is not a distribution still stops the run with the whole run's error, and the
// cache it read is left as it was (the same cache then serves a clean token from the prefix).
TEST(PrefixCache, NonFiniteNewRowIsCaughtOnThePrefixPath) {
  const auto model = random_gpt2(32, 2, 2, 50, 32, /*nan_token=*/13);
  const auto tok = std::make_shared<const NumberTokenizer>(50);
  RunOptions o;
  const std::string whole = error_of([&] { TransformerSession(model, tok, {1, 2, 3, 4, 5, 13}, 0).run(o); });
  EXPECT_NE(whole.find("random gpt2: layer 0, head 0 is not a probability distribution (query 5's weights sum to "),
            std::string::npos)
      << whole;
  PrefixCache cache;
  o.prefix_cache = &cache;
  cache.keep(std::make_shared<const AttentionRun>(TransformerSession(model, tok, {1, 2, 3, 4, 5}, 0).run(o)));
  const std::string prefix = error_of([&] { TransformerSession(model, tok, {1, 2, 3, 4, 5, 13}, 0).run(o); });
  EXPECT_EQ(prefix, whole);
  const AttentionRun next = TransformerSession(model, tok, {1, 2, 3, 4, 5, 6}, 0).run(o);
  EXPECT_EQ(cache.reused, 5);  // the path the failing run took
  EXPECT_EQ(next.token_ids.size(), 6u);
}

TEST(PrefixCache, AnyOtherSettingRunsWhole) {
  const auto model = random_gpt2(32, 2, 2, 50, 32);
  const auto other = random_gpt2(32, 2, 2, 50, 32);  // the same weights, another model object
  const auto tok = std::make_shared<const NumberTokenizer>(50);
  const std::vector<int> ids = {1, 2, 3, 4, 5}, more = {1, 2, 3, 4, 5, 6};
  const auto prime = [&](PrefixCache& cache) {
    RunOptions o;
    o.prefix_cache = &cache;
    cache.keep(std::make_shared<const AttentionRun>(TransformerSession(model, tok, ids, 0).run(o)));
  };
  PrefixCache cache;
  RunOptions o;
  o.prefix_cache = &cache;
  prime(cache);
  TransformerSession(other, tok, more, 0).run(o);
  EXPECT_EQ(cache.reused, -1) << "another model";
  prime(cache);
  RunOptions scores = o;
  scores.keep_scores = true;
  TransformerSession(model, tok, more, 0).run(scores);
  EXPECT_EQ(cache.reused, -1) << "scores kept now";
  prime(cache);
  RunOptions compact = o;
  compact.display_size = 2;
  const AttentionRun c = TransformerSession(model, tok, more, 0).run(compact);
  EXPECT_EQ(cache.reused, -1) << "long-input mode";
  EXPECT_TRUE(c.compact());
  EXPECT_TRUE(cache.ids.empty()) << "a run the cache cannot serve empties it";
  prime(cache);
  struct Hook : Observer {
    bool wants(TensorKind, int, int) const override { return false; }
    void on_tensor(TensorKind, int, int, const Map&) override {}
  } hook;
  RunOptions observed = o;
  observed.observer = &hook;  // head ablation edits contexts through its hook
  TransformerSession(model, tok, more, 0).run(observed);
  EXPECT_EQ(cache.reused, -1) << "an observer";
  prime(cache);
  TransformerSession(model, tok, more, 2).run(o);  // generate: the ids after generation decide
  EXPECT_EQ(cache.reused, 5) << "generated tokens continue the same prefix";
  // The cache without its run (the caller did not keep it) serves nothing.
  TransformerSession(model, tok, more, 0).run(o);
  EXPECT_EQ(cache.reused, -1) << "no kept run";
}

// What the views read, derived by analyse() from the previous analysis's row sums (rows 0 .. P-1)
// and the new rows, equals the same numbers derived from scratch from the same maps
// (analyse_run, compute_head_roles): bit for bit, the rollout within 1e-6.
void expect_same_derived(const RunAnalysis& got, int bos_id, const std::string& what) {
  const auto eager = analyse_run(got.run, got.request);
  ASSERT_EQ(got.difference.size(), eager->difference.size()) << what;
  for (size_t l = 0; l < eager->difference.size(); ++l) {
    EXPECT_EQ((got.difference[l] - eager->difference[l]).cwiseAbs().maxCoeff(), 0.0f) << what << ", difference layer " << l;
    EXPECT_EQ((got.distance[l] - eager->distance[l]).cwiseAbs().maxCoeff(), 0.0f) << what << ", distance layer " << l;
    EXPECT_EQ(got.layer_max[l], eager->layer_max[l]) << what;
    // Summed row by row: the whole-matrix sums head_difference / head_distance take, within 1e-6.
    EXPECT_LE((got.difference[l] - head_difference(got.run.attention[l])).cwiseAbs().maxCoeff(), 1e-6f) << what;
    EXPECT_LE((got.distance[l] - head_distance(got.run.attention[l])).cwiseAbs().maxCoeff(), 1e-6f) << what;
    for (size_t h = 0; h < eager->spectrum[l].size(); ++h)
      EXPECT_EQ(got.spectrum[l][h].mean_entropy, eager->spectrum[l][h].mean_entropy) << what << ", entropy " << l << "." << h;
  }
  EXPECT_EQ(got.difference_max, eager->difference_max) << what;
  EXPECT_EQ(got.distance_max, eager->distance_max) << what;
  ASSERT_EQ(got.rollout.rows(), eager->rollout.rows()) << what;
  if (eager->rollout.size() > 0) {
    EXPECT_LE((got.rollout - eager->rollout).cwiseAbs().maxCoeff(), 1e-6f) << what << ", rollout";
  }
  const HeadRoles roles = compute_head_roles(got.run, bos_id, nullptr, {}, got.roles.options, kDistanceSampleRows);
  ASSERT_EQ(roles.scores.size(), got.roles.scores.size()) << what;
  for (size_t l = 0; l < roles.scores.size(); ++l)
    for (size_t h = 0; h < roles.scores[l].size(); ++h)
      for (int k = 0; k < kHeadRoleCount; ++k) {
        if (k == int(HeadRole::induction)) continue;  // measured on its own probe run, not on these maps
        const float want = roles.scores[l][h].score[k], have = got.roles.scores[l][h].score[k];
        if (std::isnan(want)) {
          EXPECT_TRUE(std::isnan(have)) << what << ", role " << k;
        } else {
          EXPECT_EQ(have, want) << what << ", role " << k << " of head " << l << "." << h;
        }
      }
}

// stories260K through analyse(), as the app's worker runs it (the checkpoint cache keeps the
// model object, so the prefix cache can match it).
TEST(PrefixCache, Stories260KThroughAnalyseEqualsWholeRuns) {
  CheckpointCache checkpoints;
  PrefixCache cache;
  ModelRequest r;
  r.model_path = "stories260K";  // the shipped copy (assets/models)
  std::vector<int> base = {1, 403, 407, 261, 378, 11, 261, 402, 268, 447, 301, 285, 406, 309, 366, 313, 268, 282, 443, 271};
  for (const Step& s : typing_steps(base)) {
    r.input_ids = s.ids;
    AnalysisOptions whole_options;
    whole_options.maps = MapMode::whole;
    whole_options.checkpoints = &checkpoints;
    whole_options.induction_probe = false;
    const auto whole = analyse(r, whole_options);
    AnalysisOptions o = whole_options;
    o.prefix_cache = &cache;
    const auto got = analyse(r, o);
    EXPECT_EQ(got->reused_tokens, s.reused) << s.what;
    EXPECT_FALSE(got->run.scores.empty()) << "the app keeps scores for singular values at this length";
    expect_same_run(got->run, whole->run, "stories260K, " + s.what);
    expect_same_derived(*got, 1, "stories260K, " + s.what);
    // The end's probabilities (a minimal pair's "did the model notice"): the whole run's, where the
    // reused prefix knows them; else not given (NaN), never another position's.
    const auto same_or_unknown = [&](float g, float w, const char* what) {
      if (std::isnan(g)) return;
      EXPECT_NEAR(g, w, 1e-5) << what << ", stories260K, " << s.what;
    };
    EXPECT_FALSE(std::isnan(whole->run.last_token_log_prob) && whole->run.n_tokens() > 1) << s.what;
    same_or_unknown(got->run.last_token_log_prob, whole->run.last_token_log_prob, "log p of the last token");
    same_or_unknown(got->run.next_token_log_prob, whole->run.next_token_log_prob, "log p of the prediction");
    if (s.reused < int(s.ids.size()) - 1 || s.reused == 0) {
      EXPECT_FALSE(std::isnan(got->run.last_token_log_prob)) << "a run with new rows knows its end: " << s.what;
    }
    // What the views read is derived from the maps: the same.
    for (size_t l = 0; l < whole->spectrum.size(); ++l)
      for (size_t h = 0; h < whole->spectrum[l].size(); ++h) {
        EXPECT_NEAR(got->spectrum[l][h].mean_entropy, whole->spectrum[l][h].mean_entropy, 1e-4);
        EXPECT_EQ(got->spectrum[l][h].score_rank, whole->spectrum[l][h].score_rank);
      }
  }
}

// The synthetic layer (causal), sentence edits through analyse() as the app types them.
TEST(PrefixCache, CausalSyntheticLayerEqualsWholeRuns) {
  struct Edit {
    std::string what, sentence;
    int reused;
  };
  const std::vector<Edit> edits = {
      {"first run", "the cat sat on the mat", -1},
      {"one word appended", "the cat sat on the mat today", 6},
      {"several appended", "the cat sat on the mat today , said the old dog .", 7},
      {"edit in the middle", "the cat ran on the mat today , said the old dog .", 2},
      {"deleted at the end", "the cat ran on the mat today , said", 9},
      {"identical input", "the cat ran on the mat today , said", 9},
      {"first word changed", "a cat ran on the mat", -1},
  };
  for (const bool window : {false, true}) {
    PrefixCache cache;
    ModelRequest r;
    r.attention.d_model = 16, r.attention.n_heads = 4, r.attention.causal = true, r.seed = 3;
    if (window) r.attention.window = 2;
    for (const Edit& e : edits) {
      r.sentence = e.sentence;
      AnalysisOptions o;
      o.maps = MapMode::whole;
      const auto whole = analyse(r, o);
      o.prefix_cache = &cache;
      const auto got = analyse(r, o);
      EXPECT_EQ(got->reused_tokens, e.reused) << e.what;
      EXPECT_FALSE(got->run.scores.empty());
      expect_same_run(got->run, whole->run, "synthetic, " + e.what + (window ? ", window 2" : ""));
      expect_same_derived(*got, -1, "synthetic, " + e.what + (window ? ", window 2" : ""));
    }
  }
}

// Settings that change the maps but not the words: a whole run each time.
TEST(PrefixCache, SyntheticSettingsAndBidirectionalLayersRunWhole) {
  PrefixCache cache;
  ModelRequest r;
  r.attention.causal = true;
  r.sentence = "the cat sat";
  AnalysisOptions o;
  o.prefix_cache = &cache;
  analyse(r, o);
  r.sentence = "the cat sat down";
  r.seed = 1;  // other weights
  EXPECT_EQ(analyse(r, o)->reused_tokens, -1) << "seed";
  r.sentence = "the cat sat down here";
  r.attention.temperature = 2.0f;
  EXPECT_EQ(analyse(r, o)->reused_tokens, -1) << "temperature";
  r.sentence = "the cat sat down here now";
  EXPECT_EQ(analyse(r, o)->reused_tokens, 5) << "same settings again";
  r.attention.causal = false;  // bidirectional: every row changes
  r.sentence = "the cat sat down here now .";
  const auto bidirectional = analyse(r, o);
  EXPECT_EQ(bidirectional->reused_tokens, -1);
  EXPECT_TRUE(cache.tokens.empty() && !cache.run) << "the cache is emptied";
  r.attention.causal = true;
  r.sentence = "the cat sat down here now . !";
  EXPECT_EQ(analyse(r, o)->reused_tokens, -1) << "after a bidirectional run";
  // A --weights layer or stories260K in between: nothing of theirs is taken for the synthetic layer.
  ModelRequest stories;
  stories.model_path = "stories260K";
  stories.sentence = "the cat sat down here now . !";
  analyse(stories, o);
  EXPECT_EQ(analyse(r, o)->reused_tokens, -1) << "after another model";
}

// As the app's worker runs it: with an analysis cache beside the prefix cache, an analysis takes
// the previous one's row sums for the reused rows (it is handed back only while the engine keeps
// its run) and its numbers are those of a whole analysis.
TEST(PrefixCache, AnalysisCacheLendsThePreviousRowSums) {
  PrefixCache engine;
  AnalysisCache analyses;
  ModelRequest r;
  r.attention.d_model = 16, r.attention.n_heads = 4, r.attention.causal = true, r.seed = 5;
  AnalysisOptions o;
  o.maps = MapMode::whole;
  o.prefix_cache = &engine;
  o.analysis_cache = &analyses;
  r.sentence = "the cat sat on the mat";
  std::shared_ptr<const RunAnalysis> before = analyse(r, o);
  EXPECT_EQ(analyses.previous(&engine), before) << "the first analysis is kept";
  for (const char* sentence : {"the cat sat on the mat today", "the cat sat on the mat today , said the dog",
                              "the cat ran on the mat"}) {
    r.sentence = sentence;
    const auto got = analyse(r, o);
    EXPECT_GT(got->reused_tokens, 0) << sentence;
    EXPECT_EQ(analyses.previous(&engine), got) << sentence;
    expect_same_derived(*got, -1, std::string("analysis cache, ") + sentence);
  }
  EXPECT_EQ(analyses.previous(nullptr), nullptr) << "nothing without the engine's cache";
  r.attention.causal = false;  // a whole run: the engine keeps nothing, neither does the analysis cache
  analyse(r, o);
  EXPECT_EQ(analyses.previous(&engine), nullptr);
}

// The app's runs (RunOptions::all_next_tokens false) predict only after the last token; any other
// position's prediction is computed when asked, once, and equals the whole run's (the CLI's).
TEST(NextTokenRows, OnlyTheLastPositionUntilAPositionIsAsked) {
  const auto model = random_gpt2(48, 4, 3, 97, 64);
  const auto tok = std::make_shared<const NumberTokenizer>(97);
  const std::vector<int> ids = {5, 17, 33, 2, 8, 61, 40, 12, 90, 1, 14, 22};
  const int T = int(ids.size());
  RunOptions o;
  o.threads = 1;
  const AttentionRun all = TransformerSession(model, tok, ids, 0).run(o);
  EXPECT_EQ(all.next_token_rows_run, T);
  EXPECT_EQ(all.next_token_rows, nullptr);
  o.all_next_tokens = false;
  const AttentionRun run = TransformerSession(model, tok, ids, 0).run(o);
  EXPECT_EQ(run.next_token_rows_run, 1) << "the run predicts after its last token only";
  ASSERT_NE(run.next_token_rows, nullptr);
  EXPECT_EQ(run.next_token_rows->rows_computed(), 0);
  ASSERT_EQ(run.next_token_ids.size(), size_t(T));
  EXPECT_EQ(run.next_token_ids.back(), all.next_token_ids.back());
  EXPECT_EQ(run.next_tokens.back(), all.next_tokens.back());
  for (int i = 0; i + 1 < T; ++i) EXPECT_EQ(run.next_token_ids[size_t(i)], -1) << i;
  EXPECT_EQ(run.last_token_log_prob, all.last_token_log_prob);
  EXPECT_EQ(run.next_token_log_prob, all.next_token_log_prob);
  EXPECT_EQ(next_token_id(run, 3), all.next_token_ids[3]);
  EXPECT_EQ(next_token_label(run, 3), all.next_tokens[3]);
  EXPECT_EQ(run.next_token_rows->rows_computed(), 1) << "one row for position 3, asked twice";
  for (int i = 0; i < T; ++i) EXPECT_EQ(next_token_id(run, i), all.next_token_ids[size_t(i)]) << i;
  EXPECT_EQ(run.next_token_rows->rows_computed(), T - 1) << "every position but the last, once each";
  EXPECT_EQ(next_token_id(run, T), -1);
}

TEST(NextTokenRows, TypingKeepsPredictionsOnRequestAndEqualsWholeRuns) {
  const auto model = random_gpt2(48, 4, 3, 97, 64);
  const auto tok = std::make_shared<const NumberTokenizer>(97);
  PrefixCache cache;
  int step = 0;
  const std::vector<Step> steps = typing_steps({5, 17, 33, 2, 8, 61, 40, 12, 90, 1, 14, 22});
  for (const Step& s : steps) {
    RunOptions o;
    o.threads = 1;
    const AttentionRun whole = TransformerSession(model, tok, s.ids, 0).run(o);
    o.prefix_cache = &cache;
    o.all_next_tokens = false;
    auto got = std::make_shared<const AttentionRun>(TransformerSession(model, tok, s.ids, 0).run(o));
    EXPECT_EQ(cache.reused, s.reused) << s.what;
    EXPECT_LE(got->next_token_rows_run, 1) << s.what;
    EXPECT_EQ(got->next_token_ids.back(), whole.next_token_ids.back()) << s.what;
    // Odd steps ask for every position (the next run then reuses those), even ones (the last) for none.
    if (++step % 2 == 1) {
      for (int i = 0; i < whole.n_tokens(); ++i) {
        EXPECT_EQ(next_token_id(*got, i), whole.next_token_ids[size_t(i)]) << s.what << ", position " << i;
      }
    }
    cache.keep(got);
  }
  // A run that wants every prediction (the CLI's) after runs that left some unasked.
  RunOptions o;
  o.threads = 1;
  std::vector<int> ids = steps.back().ids;
  ids.push_back(3);
  const AttentionRun whole = TransformerSession(model, tok, ids, 0).run(o);
  o.prefix_cache = &cache;
  const AttentionRun got = TransformerSession(model, tok, ids, 0).run(o);
  EXPECT_EQ(cache.reused, int(steps.back().ids.size()));
  EXPECT_EQ(got.next_token_ids, whole.next_token_ids);
  EXPECT_EQ(got.next_tokens, whole.next_tokens);
}

}  // namespace
}  // namespace hs
