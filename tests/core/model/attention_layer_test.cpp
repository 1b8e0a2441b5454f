// The attention layer's properties: rows sum to 1, masked entries are exactly 0, softmax is
// shift-invariant, temperature divides the scores, the soft-cap bounds them, grouped-query
// attention reads the right key/value head, and the whole layer equals a direct double-precision
// evaluation of the formula (with an explicit score scale and soft-cap too).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "core/util/runtime_config.h"
#include "core/model/attention_layer.h"
#include "core/model/attention_weights.h"
#include "core/model/embedding.h"
#include "core/model/rng.h"
#include "core/model/synthetic_model.h"
#include "core/util/errors.h"

namespace hs {
namespace {

Map random_input(int T, int d, uint64_t seed) {
  Rng rng(seed);
  Map x(T, d);
  for (int i = 0; i < x.size(); ++i) x.data()[i] = static_cast<float>(rng.normal());
  return x;
}

// Random non-zero biases so they count in every check.
AttentionWeights random_weights(const AttentionConfig& c, uint64_t seed) {
  AttentionWeights w = init_attention_weights(c, seed);
  Rng rng(seed + 77);
  for (Vec* b : {&w.b_q, &w.b_k, &w.b_v, &w.b_o})
    for (Eigen::Index i = 0; i < b->size(); ++i) (*b)[i] = static_cast<float>(rng.uniform(-0.5, 0.5));
  return w;
}

struct Recorded {
  ModelMaps attention;
  ModelMaps scores;
  std::vector<Map> context;
  Map output;
};

// Records every tensor the layer announces.
class RecordAll : public Observer {
 public:
  explicit RecordAll(int heads) { rec.attention.assign(1, LayerMaps(size_t(heads))); rec.scores = rec.attention; rec.context.resize(size_t(heads)); }
  void on_tensor(TensorKind kind, int layer, int head, const Map& t) override {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_EQ(layer, 0);
    switch (kind) {
      case TensorKind::attention: rec.attention[0][size_t(head)] = t; break;
      case TensorKind::scores: rec.scores[0][size_t(head)] = t; break;
      case TensorKind::context: rec.context[size_t(head)] = t; break;
      case TensorKind::output: rec.output = t; break;
      case TensorKind::queries:  // [T, H*dh] and [T, G*dh]: exact rows from them, compact_maps_test
      case TensorKind::keys:
      case TensorKind::values: EXPECT_EQ(head, -1); break;
      default: ADD_FAILURE() << "unexpected tensor kind " << tensor_kind_name(kind);
    }
  }
  Recorded rec;

 private:
  std::mutex mutex_;
};

Recorded run_layer(const Map& x, const AttentionWeights& w, const AttentionConfig& c, int threads = 0) {
  RecordAll obs(c.n_heads);
  const Map out = attention_layer_forward(x, w, c, 0, &obs, threads);
  EXPECT_EQ(out, obs.rec.output);
  return obs.rec;
}

// Direct evaluation of the formula in double precision, query by query, key by key.
struct Reference {
  std::vector<Eigen::MatrixXd> att;  // [H] -> [T, T]
  Eigen::MatrixXd out;               // [T, d]
};

Reference reference(const Map& xf, const AttentionWeights& wf, const AttentionConfig& c) {
  const Eigen::MatrixXd x = xf.cast<double>();
  const int T = int(x.rows()), H = c.n_heads, dh = c.head_width(), group = c.group_size();
  const Eigen::MatrixXd q = (x * wf.w_q.cast<double>().transpose()).rowwise() + wf.b_q.cast<double>().transpose();
  const Eigen::MatrixXd k = (x * wf.w_k.cast<double>().transpose()).rowwise() + wf.b_k.cast<double>().transpose();
  const Eigen::MatrixXd v = (x * wf.w_v.cast<double>().transpose()).rowwise() + wf.b_v.cast<double>().transpose();
  Reference r;
  Eigen::MatrixXd concat(T, H * dh);
  for (int h = 0; h < H; ++h) {
    const int g = h / group;
    Eigen::MatrixXd a(T, T);
    for (int i = 0; i < T; ++i) {
      double m = -std::numeric_limits<double>::infinity();
      std::vector<double> s(static_cast<size_t>(T));
      // s = q . k * scale (1 / sqrt(dh) unless set), soft-capped, / temperature.
      const double scale = c.scale > 0 ? double(c.scale) : 1.0 / std::sqrt(double(dh));
      for (int j = 0; j < T; ++j) {
        double sv = q.row(i).segment(h * dh, dh).dot(k.row(j).segment(g * dh, dh)) * scale;
        if (c.softcap > 0) sv = double(c.softcap) * std::tanh(sv / double(c.softcap));
        s[size_t(j)] = sv / double(c.temperature);
        if (!key_visible(c, i, j)) s[size_t(j)] = -std::numeric_limits<double>::infinity();
        m = std::max(m, s[size_t(j)]);
      }
      double sum = 0;
      for (int j = 0; j < T; ++j) sum += std::exp(s[size_t(j)] - m);
      for (int j = 0; j < T; ++j) a(i, j) = std::exp(s[size_t(j)] - m) / sum;
    }
    concat.middleCols(h * dh, dh) = a * v.middleCols(g * dh, dh);
    r.att.push_back(a);
  }
  r.out = (concat * wf.w_o.cast<double>().transpose()).rowwise() + wf.b_o.cast<double>().transpose();
  return r;
}

// Worst cell of |ours - ref|, described for the failure message.
std::string worst_cell(const Map& ours, const Eigen::MatrixXd& ref, double* err) {
  *err = 0;
  std::string where = "none";
  for (Eigen::Index i = 0; i < ours.rows(); ++i)
    for (Eigen::Index j = 0; j < ours.cols(); ++j) {
      const double e = std::abs(double(ours(i, j)) - ref(i, j));
      if (e > *err) {
        *err = e;
        where = "[" + std::to_string(i) + "][" + std::to_string(j) + "] ours " + std::to_string(ours(i, j)) +
                " reference " + std::to_string(ref(i, j));
      }
    }
  return where;
}

void expect_matches_reference(const AttentionConfig& c, int T, uint64_t seed) {
  const Map x = random_input(T, c.d_model, seed);
  const AttentionWeights w = random_weights(c, seed);
  const Recorded got = run_layer(x, w, c);
  const Reference ref = reference(x, w, c);
  for (int h = 0; h < c.n_heads; ++h) {
    double err = 0;
    const std::string where = worst_cell(got.attention[0][size_t(h)], ref.att[size_t(h)], &err);
    EXPECT_LE(err, 1e-5) << "head " << h << " attention cell " << where;
  }
  double err = 0;
  const std::string where = worst_cell(got.output, ref.out, &err);
  EXPECT_LE(err, 1e-5) << "output cell " << where;
}

AttentionConfig config(int d, int H, int G = 0) {
  AttentionConfig c;
  c.d_model = d;
  c.n_heads = H;
  c.n_kv_heads = G;
  return c;
}

TEST(AttentionLayer, MatchesDirectEvaluationOfTheFormula) {
  expect_matches_reference(config(8, 2), 6, 1);
  expect_matches_reference(config(8, 8), 5, 2);  // d_head = 1
  expect_matches_reference(config(6, 1), 4, 3);
  expect_matches_reference(config(16, 4), 1, 4);  // T = 1
  expect_matches_reference(config(12, 6, 2), 9, 5);  // grouped-query
  expect_matches_reference(config(8, 4, 1), 7, 6);   // multi-query
  AttentionConfig wide = config(8, 2);
  wide.d_head = 5;  // decoupled width: Q/K/V are [T, H*5]
  expect_matches_reference(wide, 6, 7);
  AttentionConfig masked = config(8, 4);
  masked.causal = true;
  masked.window = 2;
  masked.temperature = 0.7f;
  expect_matches_reference(masked, 10, 8);
}

// Gemma-style scores: an explicit scale (query_pre_attn_scalar^-1/2) and a soft-cap small enough
// to bite, with masks, windows and grouped queries.
TEST(AttentionLayer, ScaleAndSoftCapMatchDirectEvaluation) {
  AttentionConfig c = config(16, 4, 2);
  c.scale = 0.61f;
  expect_matches_reference(c, 9, 11);
  c.softcap = 0.8f;
  expect_matches_reference(c, 9, 12);
  c.causal = true;
  c.window = 3;
  expect_matches_reference(c, 14, 13);
  c.scale = 0.0f;  // soft-cap on the usual 1 / sqrt(d_head) scores
  c.d_head = 6;
  c.temperature = 1.7f;
  expect_matches_reference(c, 11, 14);
}

// cap * tanh(s / cap): every visible score lies in [-cap, cap] (tanh rounds to 1 in float far
// out), small scores barely move, the maps flatten; the same layer without a cap has scores
// beyond it.
TEST(AttentionLayer, SoftCapBoundsTheScores) {
  AttentionConfig c = config(8, 2);
  c.causal = true;
  const Map x = random_input(12, 8, 71) * 3.0f;
  const AttentionWeights w = random_weights(c, 72);
  const Recorded plain = run_layer(x, w, c);
  c.softcap = 1.5f;
  const Recorded capped = run_layer(x, w, c);
  float largest_plain = 0.0f;
  for (int h = 0; h < 2; ++h) {
    const Map& s0 = plain.scores[0][size_t(h)];
    const Map& s1 = capped.scores[0][size_t(h)];
    for (int i = 0; i < 12; ++i)
      for (int j = 0; j <= i; ++j) {
        largest_plain = std::max(largest_plain, std::abs(s0(i, j)));
        ASSERT_LE(std::abs(s1(i, j)), 1.5f) << "head " << h << " score [" << i << "][" << j << "]";
        ASSERT_NEAR(s1(i, j), 1.5f * std::tanh(s0(i, j) / 1.5f), 1e-5f) << "head " << h << " score [" << i << "][" << j << "]";
      }
    EXPECT_EQ(s1(0, 1), -std::numeric_limits<float>::infinity()) << "masked after the cap";
  }
  EXPECT_GT(largest_plain, 3.0f) << "the inputs should give scores the cap bites on";
  EXPECT_GT((plain.attention[0][0] - capped.attention[0][0]).cwiseAbs().maxCoeff(), 0.05f);
}

// An explicit scale k / sqrt(d_head) gives the maps of temperature 1 / k.
TEST(AttentionLayer, ExplicitScaleActsLikeAnInverseTemperature) {
  AttentionConfig c = config(12, 3);
  const Map x = random_input(8, 12, 81);
  const AttentionWeights w = random_weights(c, 82);
  c.temperature = 0.5f;
  const Recorded t = run_layer(x, w, c);
  c.temperature = 1.0f;
  c.scale = 2.0f / 2.0f;  // d_head 4: 2 / sqrt(4)
  const Recorded s = run_layer(x, w, c);
  for (int h = 0; h < 3; ++h)
    EXPECT_LE((t.attention[0][size_t(h)] - s.attention[0][size_t(h)]).cwiseAbs().maxCoeff(), 1e-6f) << "head " << h;
}

TEST(AttentionLayer, RowsSumToOneAndAreNonNegative) {
  for (int H : {1, 2, 4, 8}) {
    const AttentionConfig c = config(8, H);
    const Recorded r = run_layer(random_input(13, 8, 10 + H), random_weights(c, 20 + H), c);
    for (int h = 0; h < H; ++h) {
      const Map& a = r.attention[0][size_t(h)];
      ASSERT_EQ(a.rows(), 13);
      ASSERT_EQ(a.cols(), 13);
      for (int i = 0; i < 13; ++i) {
        EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f) << "heads " << H << " head " << h << " row " << i;
        EXPECT_GE(a.row(i).minCoeff(), 0.0f) << "heads " << H << " head " << h << " row " << i;
      }
    }
  }
}

TEST(AttentionLayer, KeyVisibleRule) {
  AttentionConfig c = config(8, 2);
  // No mask: everything visible.
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) EXPECT_TRUE(key_visible(c, i, j));
  // Causal: j <= i.
  c.causal = true;
  EXPECT_TRUE(key_visible(c, 3, 3));
  EXPECT_TRUE(key_visible(c, 3, 0));
  EXPECT_FALSE(key_visible(c, 3, 4));
  // Causal sliding window W = 2: i - 2 <= j <= i.
  c.window = 2;
  EXPECT_TRUE(key_visible(c, 5, 5));
  EXPECT_TRUE(key_visible(c, 5, 3));
  EXPECT_FALSE(key_visible(c, 5, 2));
  EXPECT_FALSE(key_visible(c, 5, 6));
  // Window without causal: |i - j| <= W on both sides.
  c.causal = false;
  EXPECT_TRUE(key_visible(c, 5, 7));
  EXPECT_FALSE(key_visible(c, 5, 8));
  EXPECT_TRUE(key_visible(c, 5, 3));
  EXPECT_FALSE(key_visible(c, 5, 2));
  // Window 0: only the query itself.
  c.window = 0;
  EXPECT_TRUE(key_visible(c, 4, 4));
  EXPECT_FALSE(key_visible(c, 4, 3));
  EXPECT_FALSE(key_visible(c, 4, 5));
}

// A window wider than the sentence is no window, up to INT_MAX: i + W is computed in 64 bits
// (it wrapped to a negative bound and the engine wrote outside the map: issue 15).
TEST(AttentionLayer, HugeWindowIsNoWindow) {
  const int kIntMax = std::numeric_limits<int>::max();
  for (const bool causal : {false, true}) {
    AttentionConfig plain = config(8, 2);
    plain.causal = causal;
    const Map x = random_input(5, 8, 41);
    const AttentionWeights w = random_weights(plain, 42);
    const Recorded expected = run_layer(x, w, plain);
    for (const int window : {5, kIntMax - 3, kIntMax - 1, kIntMax}) {
      AttentionConfig c = plain;
      c.window = window;
      for (int i = 0; i < 5; ++i) {
        const KeyRange r = visible_keys(c, i, 5);
        EXPECT_EQ(r.lo, 0) << "window " << window << " query " << i;
        EXPECT_EQ(r.hi, causal ? i : 4) << "window " << window << " query " << i;
        for (int j = 0; j < 5; ++j) EXPECT_EQ(key_visible(c, i, j), !causal || j <= i);
      }
      const Recorded got = run_layer(x, w, c);
      for (int h = 0; h < 2; ++h)
        EXPECT_EQ(got.attention[0][size_t(h)], expected.attention[0][size_t(h)]) << "window " << window << " head " << h;
    }
  }
  // Far-apart positions do not wrap either.
  AttentionConfig c = config(8, 2);
  c.window = kIntMax;
  EXPECT_TRUE(key_visible(c, kIntMax, 0));
  EXPECT_TRUE(key_visible(c, 0, kIntMax));
  c.window = 1;
  EXPECT_FALSE(key_visible(c, std::numeric_limits<int>::min(), kIntMax));
}

TEST(AttentionLayer, MaskedEntriesAreExactlyZero) {
  struct Case { bool causal; int window; };
  for (const Case m : {Case{true, -1}, Case{false, 0}, Case{false, 2}, Case{true, 0}, Case{true, 3}}) {
    AttentionConfig c = config(8, 4);
    c.causal = m.causal;
    c.window = m.window;
    // Large inputs: a visible entry must not underflow to 0 by accident for the check below.
    const Recorded r = run_layer(random_input(12, 8, 31), random_weights(c, 32), c);
    for (int h = 0; h < 4; ++h) {
      const Map& a = r.attention[0][size_t(h)];
      const Map& s = r.scores[0][size_t(h)];
      for (int i = 0; i < 12; ++i) {
        EXPECT_NEAR(a.row(i).sum(), 1.0f, 1e-6f);
        for (int j = 0; j < 12; ++j) {
          if (key_visible(c, i, j)) {
            EXPECT_GT(a(i, j), 0.0f) << "causal " << m.causal << " window " << m.window << " head " << h << " cell [" << i << "][" << j << "]";
            EXPECT_TRUE(std::isfinite(s(i, j)));
          } else {
            EXPECT_EQ(a(i, j), 0.0f) << "causal " << m.causal << " window " << m.window << " head " << h << " cell [" << i << "][" << j << "]";
            EXPECT_EQ(s(i, j), -std::numeric_limits<float>::infinity()) << "score [" << i << "][" << j << "]";
          }
        }
      }
    }
  }
}

TEST(AttentionLayer, CausalFirstRowAndWindowZeroAreOneHot) {
  AttentionConfig c = config(8, 2);
  c.window = 0;
  const Recorded r = run_layer(random_input(6, 8, 41), random_weights(c, 42), c);
  for (int h = 0; h < 2; ++h) EXPECT_EQ(r.attention[0][size_t(h)], Map::Identity(6, 6)) << "head " << h;
  c.window = -1;
  c.causal = true;
  const Recorded rc = run_layer(random_input(6, 8, 41), random_weights(c, 42), c);
  EXPECT_EQ(rc.attention[0][0](0, 0), 1.0f);
}

// softmax(s + c) = softmax(s): a key bias adds q_i . b_k to every score of row i, the same
// constant across the row, so the maps must not change while the scores do.
TEST(AttentionLayer, SoftmaxIsShiftInvariant) {
  const AttentionConfig c = config(8, 2);
  const Map x = random_input(7, 8, 51);
  AttentionWeights w = random_weights(c, 52);
  const Recorded a = run_layer(x, w, c);
  w.b_k.array() += 3.0f;
  w.b_k[1] -= 5.0f;
  const Recorded b = run_layer(x, w, c);
  for (int h = 0; h < 2; ++h) {
    EXPECT_GT((a.scores[0][size_t(h)] - b.scores[0][size_t(h)]).cwiseAbs().maxCoeff(), 0.1f) << "the shift did nothing";
    const float err = (a.attention[0][size_t(h)] - b.attention[0][size_t(h)]).cwiseAbs().maxCoeff();
    EXPECT_LE(err, 2e-6f) << "head " << h;
  }
}

TEST(AttentionLayer, TemperatureDividesTheScores) {
  AttentionConfig c = config(8, 2);
  const Map x = random_input(6, 8, 61);
  const AttentionWeights w = random_weights(c, 62);
  const Recorded base = run_layer(x, w, c);
  for (float t : {0.25f, 2.0f, 10.0f}) {
    c.temperature = t;
    const Recorded r = run_layer(x, w, c);
    for (int h = 0; h < 2; ++h) {
      const Map expected_scores = base.scores[0][size_t(h)] / t;
      EXPECT_LE((r.scores[0][size_t(h)] - expected_scores).cwiseAbs().maxCoeff(), 1e-5f) << "temperature " << t;
      Map sm = expected_scores;  // softmax by hand
      for (int i = 0; i < sm.rows(); ++i) {
        sm.row(i) = (sm.row(i).array() - sm.row(i).maxCoeff()).exp();
        sm.row(i) /= sm.row(i).sum();
      }
      EXPECT_LE((r.attention[0][size_t(h)] - sm).cwiseAbs().maxCoeff(), 1e-6f) << "temperature " << t << " head " << h;
    }
  }
  // A very high temperature flattens every row towards uniform.
  c.temperature = kMaxTemperature;
  const Recorded flat = run_layer(x, w, c);
  EXPECT_LE((flat.attention[0][0].array() - 1.0f / 6.0f).abs().maxCoeff(), 1e-2f);
}

// G = H is plain multi-head attention: the same weights give the same maps and output.
TEST(AttentionLayer, GroupedQueryWithGEqualHIsMultiHead) {
  const AttentionConfig plain = config(8, 4);
  const AttentionConfig gqa = config(8, 4, 4);
  EXPECT_EQ(gqa.group_size(), 1);
  const Map x = random_input(9, 8, 71);
  const AttentionWeights w = random_weights(plain, 72);
  const Recorded a = run_layer(x, w, plain);
  const Recorded b = run_layer(x, w, gqa);
  for (int h = 0; h < 4; ++h) EXPECT_EQ(a.attention[0][size_t(h)], b.attention[0][size_t(h)]) << "head " << h;
  EXPECT_EQ(a.output, b.output);
}

// With G key/value heads, query head h reads key/value head h / (H/G): copying that K/V
// block into every query head's slot of a plain multi-head layer must give the same result.
TEST(AttentionLayer, GroupedQueryReadsKeyValueHeadHOverGroupSize) {
  for (int G : {1, 2}) {
    const AttentionConfig gqa = config(8, 4, G);
    const AttentionConfig plain = config(8, 4);
    const int dh = 2, group = 4 / G;
    const AttentionWeights wg = random_weights(gqa, 80 + G);
    ASSERT_EQ(wg.w_k.rows(), G * dh);
    AttentionWeights wp = wg;
    wp.w_k.resize(4 * dh, 8);
    wp.w_v.resize(4 * dh, 8);
    wp.b_k.resize(4 * dh);
    wp.b_v.resize(4 * dh);
    for (int h = 0; h < 4; ++h) {
      const int g = h / group;
      wp.w_k.middleRows(h * dh, dh) = wg.w_k.middleRows(g * dh, dh);
      wp.w_v.middleRows(h * dh, dh) = wg.w_v.middleRows(g * dh, dh);
      wp.b_k.segment(h * dh, dh) = wg.b_k.segment(g * dh, dh);
      wp.b_v.segment(h * dh, dh) = wg.b_v.segment(g * dh, dh);
    }
    const Map x = random_input(7, 8, 90);
    const Recorded a = run_layer(x, wg, gqa);
    const Recorded b = run_layer(x, wp, plain);
    for (int h = 0; h < 4; ++h) {
      EXPECT_LE((a.attention[0][size_t(h)] - b.attention[0][size_t(h)]).cwiseAbs().maxCoeff(), 1e-6f) << "G " << G << " head " << h;
      EXPECT_LE((a.context[size_t(h)] - b.context[size_t(h)]).cwiseAbs().maxCoeff(), 1e-6f) << "G " << G << " head " << h;
    }
    EXPECT_LE((a.output - b.output).cwiseAbs().maxCoeff(), 1e-5f) << "G " << G;
  }
}

// Multi-query (G = 1): every head's context is its own map times the one shared V.
TEST(AttentionLayer, MultiQueryHeadsShareOneValueHead) {
  const AttentionConfig c = config(8, 4, 1);
  const Map x = random_input(6, 8, 95);
  const AttentionWeights w = random_weights(c, 96);
  const Recorded r = run_layer(x, w, c);
  const Map v = (x * w.w_v.transpose()).rowwise() + w.b_v.transpose();  // [T, 1 * d_head]
  ASSERT_EQ(v.cols(), 2);
  for (int h = 0; h < 4; ++h) {
    const Map expected = r.attention[0][size_t(h)] * v;
    EXPECT_LE((r.context[size_t(h)] - expected).cwiseAbs().maxCoeff(), 1e-6f) << "head " << h;
  }
  // The heads still differ (their queries differ).
  EXPECT_GT((r.attention[0][0] - r.attention[0][1]).cwiseAbs().maxCoeff(), 1e-3f);
}

TEST(AttentionLayer, ObserverShapesAndThreadsAgree) {
  AttentionConfig c = config(12, 3);
  c.d_head = 5;
  const Map x = random_input(8, 12, 101);
  const AttentionWeights w = random_weights(c, 102);
  const Recorded one = run_layer(x, w, c, 1);
  const Recorded many = run_layer(x, w, c, 4);
  for (int h = 0; h < 3; ++h) {
    EXPECT_EQ(one.context[size_t(h)].rows(), 8);
    EXPECT_EQ(one.context[size_t(h)].cols(), 5);
    EXPECT_EQ(one.attention[0][size_t(h)], many.attention[0][size_t(h)]);
  }
  EXPECT_EQ(one.output.rows(), 8);
  EXPECT_EQ(one.output.cols(), 12);
  EXPECT_EQ(one.output, many.output);
}

void set_max_map_bytes(int64_t bytes) {
  RuntimeConfig c = default_runtime_config();
  c.max_map_bytes = bytes;  // the programs pass HEADSCOPE_MAX_MAP_BYTES on (app/common/environment.h)
  set_runtime_config(c);
}

TEST(AttentionLayer, MapMemoryLimit) {
  set_max_map_bytes(4000);
  EXPECT_EQ(max_map_bytes(), 4000);
  EXPECT_NO_THROW(check_map_memory(10, 10));  // 4000 bytes: at the limit
  try {
    check_map_memory(11, 10);
    ADD_FAILURE() << "11 x 11 x 10 floats passed a 4000-byte limit";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("11 tokens"), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit"), std::string::npos) << msg;
    EXPECT_NE(msg.find("HEADSCOPE_MAX_MAP_BYTES"), std::string::npos) << msg;
  }
  // Through the model: the check happens before anything is computed.
  SyntheticSpec spec;
  spec.attention = config(8, 4);
  EXPECT_THROW(run_synthetic("a b c d e f g h i j k l m n o p q r s t", spec), InputError);  // 20 x 20 x 4 x 4 bytes
  set_max_map_bytes(0);
  EXPECT_GT(max_map_bytes(), int64_t(1) << 20);
  EXPECT_LE(max_map_bytes(), int64_t(8) << 30);
  EXPECT_THROW(check_map_memory(2000000, 12), InputError);
  EXPECT_NO_THROW(run_synthetic("a b c d e f g h i j k l", spec));
}

TEST(AttentionLayer, MapMemoryLimitIsNotReadFromTheEnvironment) {
  ::setenv("HEADSCOPE_MAX_MAP_BYTES", "4000", 1);
  EXPECT_GT(max_map_bytes(), int64_t(1) << 20) << "core takes its limit from its runtime configuration, not the environment";
  ::unsetenv("HEADSCOPE_MAX_MAP_BYTES");
}

}  // namespace
}  // namespace hs
