// Lessons whose pictures show what they say (issue 19): every claim a shipped lesson's caption
// makes about its maps is computed here through core (analyse, head roles) from the step's own
// session and asserted. Each check first finds the claim's words in the caption or the notes, so
// a text edited away from its check fails here too.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <sstream>

#include "core/analysis/contrast.h"
#include "core/analysis/pattern_fit.h"
#include "core/analysis/target_pattern.h"
#include "core/analysis/run_analysis.h"
#include "core/model/attention_config.h"
#include "core/session/lesson_file.h"
#include "core/util/format.h"

namespace hs {
namespace {

Lesson shipped(const std::string& name) {
  return load_lesson((std::filesystem::path(HEADSCOPE_SOURCE_DIR) / "assets" / "lessons" / name).string());
}

std::shared_ptr<const RunAnalysis> maps_of(const Session& s) { return analyse(s.request); }

// The claim's words are in the caption, or in the presenter notes that carry the longer
// explanation (the slide's caption is at most 30 words): said either way, checked here.
void says(const LessonStep& step, const std::string& words) {
  EXPECT_TRUE(step.caption.find(words) != std::string::npos || step.notes.find(words) != std::string::npos)
      << "\"" << step.title << "\" no longer says: " << words;
}

int token_index(const AttentionRun& run, const std::string& label, int nth = 0) {
  for (int i = 0; i < run.n_tokens(); ++i)
    if (run.tokens[size_t(i)] == label && nth-- == 0) return i;
  return -1;
}

int argmax_in_row(const Map& a, int row) {
  Eigen::Index j = 0;
  a.row(row).maxCoeff(&j);
  return int(j);
}

float role(const RunAnalysis& a, int layer, int head, HeadRole r) { return a.roles.scores[size_t(layer)][size_t(head)][r]; }

// The strongest head of a role: {layer, head, score}.
struct Best {
  int layer = -1, head = -1;
  float score = -1;
};
Best strongest(const RunAnalysis& a, HeadRole r) {
  Best b;
  for (int l = 0; l < a.roles.n_layers(); ++l)
    for (int h = 0; h < a.roles.n_heads(); ++h)
      if (role(a, l, h, r) > b.score) b = {l, h, role(a, l, h, r)};
  return b;
}

// ---- "Multi-head attention, one idea at a time" ----

class MultiHeadLesson : public ::testing::Test {
 protected:
  const Lesson lesson = shipped("multi_head_attention.json");
  const LessonStep& step(int n) { return lesson.steps.at(size_t(n - 1)); }
};

TEST_F(MultiHeadLesson, Step1TheHersRowOfEachTeachingHead) {
  const LessonStep& s = step(1);
  says(s, "h2 puts its largest weight on 'Priya', h3 on 'keys', h0 on the previous token 'not', h1 on the first token 'the'");
  const auto a = maps_of(s.session);
  const AttentionRun& run = a->run;
  EXPECT_EQ(run.info.kind, "teaching");
  ASSERT_EQ(s.session.view.queries, std::vector<int>{10}) << "the Query tab shows the 'hers' row";
  ASSERT_EQ(run.tokens.at(10), "hers");
  EXPECT_EQ(s.session.view.panel, "query");
  EXPECT_EQ(s.session.view.layer, 0);
  const int hers = 10;
  EXPECT_EQ(argmax_in_row(run.attention[0][2], hers), token_index(run, "Priya"));
  EXPECT_EQ(argmax_in_row(run.attention[0][3], hers), token_index(run, "keys"));
  EXPECT_EQ(argmax_in_row(run.attention[0][0], hers), token_index(run, "not"));
  EXPECT_EQ(argmax_in_row(run.attention[0][1], hers), 0);
  EXPECT_EQ(run.tokens[0], "the");
  for (int h = 0; h < 4; ++h) EXPECT_GT(run.attention[0][size_t(h)].row(hers).maxCoeff(), 0.99f) << "h" << h << " is sure";
}

// Step 2 (issue 46): on the teaching model, whose four heads each do a job, the count of the
// model the lesson is about, and the same count however its 2,304 slots are split.
TEST_F(MultiHeadLesson, Step2TheTeachingModelsCountWhateverTheSplit) {
  const LessonStep& s = step(2);
  says(s, "the teaching model 2,304 into 4 heads of 576");
  says(s, "Parameters per layer: 15,068,160, however it splits");
  says(s, "288 for d_model 8, for 1, 2, 4 or 8 heads");
  EXPECT_EQ(s.session.view.panel, "overview") << "both layers' heads, each with its job";
  const auto a = maps_of(s.session);
  const ModelInfo& info = a->run.info;
  ASSERT_EQ(info.kind, "teaching");
  EXPECT_EQ(info.n_heads, 4);
  EXPECT_EQ(info.d_head, 576);
  EXPECT_EQ(info.n_heads * info.d_head, 2304);
  EXPECT_EQ(info.param_count, 15068160);
  // However the 2,304 slots are split (no biases: Q, K, V [H*dh, d], O [d, H*dh]).
  for (int heads : {1, 2, 4, 8, 16}) {
    AttentionConfig c;
    c.d_model = info.d_model, c.n_heads = heads, c.d_head = 2304 / heads, c.bias = false;
    EXPECT_EQ(attention_param_count(c), info.param_count) << heads << " heads of " << c.d_head;
  }
  // The synthetic layer's 4 d^2 + 4 d, with biases, for d_model 8.
  for (int heads : {1, 2, 4, 8}) {
    AttentionConfig c;
    c.d_model = 8, c.n_heads = heads;
    EXPECT_EQ(attention_param_count(c), 288) << heads << " heads";
  }
  // Each of the four maps shows its job on the 'hers' row: the heads' maps mean something.
  const AttentionRun& run = a->run;
  const int hers = token_index(run, "hers");
  ASSERT_EQ(hers, 10);
  EXPECT_EQ(argmax_in_row(run.attention[0][0], hers), hers - 1);
  EXPECT_EQ(argmax_in_row(run.attention[0][1], hers), 0);
  EXPECT_EQ(argmax_in_row(run.attention[0][2], hers), token_index(run, "Priya"));
  EXPECT_EQ(argmax_in_row(run.attention[0][3], hers), token_index(run, "keys"));
}

// Step 3 (issue 46): the reshape bug on wired heads, so the correct block shows each head's job
// and the wrong reshape visibly loses it.
TEST_F(MultiHeadLesson, Step3TheWrongReshapeScramblesTheWiredHeads) {
  const LessonStep& s = step(3);
  says(s, "scrambles every wired head");
  says(s, "h0 puts on average 0.14 of a row on the previous token instead of 1.00, and h2's 'hers' row no longer finds 'Priya'");
  EXPECT_EQ(s.label, "correct");
  ASSERT_EQ(s.compare.size(), 1u);
  EXPECT_EQ(s.compare[0].label.rfind("wrong reshape", 0), 0u) << s.compare[0].label;
  EXPECT_EQ(s.session.view.layer, 0);
  const auto right = maps_of(s.session), wrong = maps_of(s.compare[0].session);
  ASSERT_EQ(right->run.info.kind, "teaching");
  ASSERT_EQ(wrong->run.info.kind, "teaching");
  const AttentionRun &r = right->run, &w = wrong->run;
  const int T = r.n_tokens();
  // The previous-token head: 1.00 on the previous token when split right, 0.14 on average when not.
  double ok = 0, bad = 0;
  for (int i = 1; i < T; ++i) ok += r.attention[0][0](i, i - 1), bad += w.attention[0][0](i, i - 1);
  ok /= T - 1, bad /= T - 1;
  EXPECT_GT(ok, 0.995) << "correct: h0's mean weight on the previous token";
  EXPECT_NEAR(bad, 0.14, 0.005) << "wrong reshape: h0's mean weight on the previous token";
  const int hers = token_index(r, "hers"), priya = token_index(r, "Priya");
  EXPECT_EQ(argmax_in_row(r.attention[0][2], hers), priya);
  EXPECT_LT(w.attention[0][2](hers, priya), 0.01f) << "wrong reshape: h2's 'hers' row still finds 'Priya'";
  // Every head of layer 0 changes: the mean over rows of half the L1 distance (total variation).
  for (int h = 0; h < 4; ++h) {
    const double tv = 0.5 * (r.attention[0][size_t(h)] - w.attention[0][size_t(h)]).cwiseAbs().sum() / T;
    EXPECT_GT(tv, 0.1) << "h" << h << ": the wrong reshape's map is too close to the correct one";
  }
}

TEST_F(MultiHeadLesson, Step4TheAverageBlursWhatEachHeadKeepsSharp) {
  const LessonStep& s = step(4);
  says(s, "each of its layer-0 heads puts almost all of a row on one key, or spreads the row evenly");
  says(s, "their average blurs every row over several keys");
  EXPECT_EQ(s.session.view.panel, "average");
  const auto a = maps_of(s.session);
  const AttentionRun& run = a->run;
  EXPECT_EQ(run.info.kind, "teaching");
  for (int h = 0; h < 4; ++h)
    for (int i = 0; i < run.n_tokens(); ++i) {
      const auto row = run.attention[0][size_t(h)].row(i).head(i + 1);
      const bool one_key = row.maxCoeff() > 0.99f, even = row.maxCoeff() - row.minCoeff() < 1e-5f;
      EXPECT_TRUE(one_key || even) << "h" << h << " row " << i;
    }
  for (int i = 1; i < run.n_tokens(); ++i) EXPECT_LT(a->average[0].row(i).maxCoeff(), 0.8f) << "average row " << i;
}

// The head-width steps (issue 45): width-1 heads against a width-8 head on one sentence longer
// than 8 tokens, the pattern fit, the decoupled head width.
TEST_F(MultiHeadLesson, Step5WidthOneHeadsDrawStripesAndReachTwoKeys) {
  const LessonStep& s = step(5);
  says(s, "8 width-1 heads vs one width-8 head, 11 tokens");
  says(s, "rank keys alike in every row: stripes");
  EXPECT_EQ(s.session.view.panel, "width");
  EXPECT_EQ(s.session.view.width, "keys");
  const auto a = maps_of(s.session);
  const int T = a->run.n_tokens();
  ASSERT_EQ(T, 11);
  ASSERT_EQ(a->run.info.d_head, 1);
  ASSERT_EQ(a->reach.at(0).size(), 8u);
  says(s, "Only 2 keys can win");
  for (int h = 0; h < 8; ++h) {
    const HeadReach& r = a->reach[0][size_t(h)];
    EXPECT_EQ(r.reachable_keys.size(), 2u) << "h" << h;
    EXPECT_EQ(r.agreeing_rows, T) << "h" << h << ": every row ranks the keys as the last one (or reversed)";
    for (int i = 0; i < T; ++i) {  // the stripes: every row's largest weight on one of the two keys
      const int top = argmax_in_row(a->run.attention[0][size_t(h)], i);
      EXPECT_TRUE(top == r.reachable_keys[0] || top == r.reachable_keys[1]) << "h" << h << " row " << i;
    }
  }
  ASSERT_EQ(s.compare.size(), 1u);
  const auto wide = maps_of(s.compare[0].session);
  ASSERT_EQ(wide->run.info.d_head, 8);
  ASSERT_GT(T, wide->run.info.d_head) << "T > d_head: the width, not T, caps the head";
  const HeadReach& w = wide->reach.at(0).at(0);
  says(s, "width 8: " + std::to_string(w.reachable_keys.size()));
  EXPECT_LT(w.agreeing_rows, T);
}

TEST_F(MultiHeadLesson, Step6WidthOneCannotDrawThePreviousTokenAndWidthFourCan) {
  const LessonStep& s = step(6);
  EXPECT_EQ(s.session.view.panel, "width");
  EXPECT_EQ(s.session.view.width, "previous");
  const auto a = maps_of(s.session);
  PatternFitOptions o;
  o.seed = s.session.request.seed;  // as the app fits it
  const PatternFit fit = fit_pattern(target_pattern("previous", *a), o);
  const int T = a->run.n_tokens();
  ASSERT_EQ(fit.fits.size(), 5u);
  const WidthFit &one = fit.fits[0], &four = fit.fits[2], &last = fit.fits.back();
  ASSERT_EQ(four.width, 4);
  says(s, format("width 1 misses by %.2f (%zu keys reachable), width 4 by %.2f", double(one.error), one.reachable_keys.size(),
                 double(four.error)));
  EXPECT_GT(one.error, 0.5f);
  EXPECT_LT(four.error, 0.1f);
  says(s, format("width %d = T - 1 draws any pattern", T - 1));
  EXPECT_EQ(last.width, T - 1);
  EXPECT_LT(last.error, 0.01f);
}

TEST_F(MultiHeadLesson, Step7ADecoupledHeadWidthReachesKeysAgainAtAPrice) {
  const LessonStep& s = step(7);
  const auto a = maps_of(s.session);
  ASSERT_EQ(a->run.info.d_head, 4);
  ASSERT_EQ(a->run.info.n_heads, 8);
  size_t lo = 99, hi = 0;
  for (const HeadReach& r : a->reach.at(0)) lo = std::min(lo, r.reachable_keys.size()), hi = std::max(hi, r.reachable_keys.size());
  says(s, "Head width 4, set apart from d_model, gives each of the 8 heads 4 slots");
  says(s, format("each reaches %zu to %zu of %d keys again", lo, hi, a->run.n_tokens()));
  says(s, format("at %s parameters instead of 288", format_count(a->run.info.param_count).c_str()));
  const auto narrow = maps_of(s.compare.at(0).session);
  EXPECT_EQ(narrow->run.info.param_count, 288);
  EXPECT_EQ(narrow->run.info.d_head, 1);
  EXPECT_TRUE(std::find(s.unlocked.begin(), s.unlocked.end(), "d_head") != s.unlocked.end());
}

TEST_F(MultiHeadLesson, HeadWidthCaptionsAreShort) {
  for (int n : {5, 6, 7}) {  // read from the back of the room: the longer story is in the step's notes
    std::istringstream words(step(n).caption);
    EXPECT_LE(std::distance(std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()), 30) << "step " << n;
  }
}

TEST_F(MultiHeadLesson, Step8AQuarterOfTheCache) {
  const LessonStep& s = step(8);
  says(s, "32 query heads on 8 key/value heads keep a quarter of the cache");
  AttentionConfig gqa, mha;
  gqa.d_model = mha.d_model = 4096;
  gqa.n_heads = mha.n_heads = 32;
  gqa.n_kv_heads = 8;
  mha.n_kv_heads = 32;
  EXPECT_EQ(4 * kv_cache_floats_per_token(gqa), kv_cache_floats_per_token(mha));
  const auto a = maps_of(s.session);
  EXPECT_EQ(a->run.info.n_kv_heads, 2);
}

// Step 8 (issue 46): on the teaching model's wired heads, a group shares its first head's keys.
// h0 and h1 share the position keys and keep their own maps (different queries); h3 (what) must
// read h2's keys (names), so its map is h2's: the 'hers' row lands on 'Priya', not on 'keys'.
TEST_F(MultiHeadLesson, Step8GroupedHeadsShareTheirKeys) {
  const LessonStep& s = step(8);
  says(s, "h3 must use h2's keys (names), so 'hers' finds Priya, not keys");
  says(s, "h0 and h1 share the position keys and still draw different maps");
  EXPECT_EQ(s.label, "grouped: 2 key/value heads");
  ASSERT_EQ(s.compare.size(), 1u);
  EXPECT_EQ(s.session.view.layer, 0);
  const auto grouped = maps_of(s.session), plain = maps_of(s.compare[0].session);
  const AttentionRun &g = grouped->run, &m = plain->run;
  ASSERT_EQ(g.info.kind, "teaching");
  EXPECT_EQ(g.info.n_kv_heads, 2);
  EXPECT_EQ(m.info.n_kv_heads, 4);
  EXPECT_EQ(g.info.n_heads, 4);
  const auto diff = [](const Map& a, const Map& b) { return (a - b).cwiseAbs().maxCoeff(); };
  // The first head of each group keeps its keys, so its map; so does h1, whose keys were the same.
  for (int h : {0, 1, 2}) EXPECT_EQ(diff(g.attention[0][size_t(h)], m.attention[0][size_t(h)]), 0.0f) << "h" << h;
  EXPECT_GT(diff(g.attention[0][0], g.attention[0][1]), 0.99f) << "h0 and h1 share keys but not queries";
  // h3 shares h2's key columns: the same map, cell for cell.
  EXPECT_EQ(diff(g.attention[0][3], g.attention[0][2]), 0.0f);
  const int hers = token_index(g, "hers");
  EXPECT_EQ(argmax_in_row(m.attention[0][3], hers), token_index(m, "keys")) << "multi-head: what finds keys";
  EXPECT_EQ(argmax_in_row(g.attention[0][3], hers), token_index(g, "Priya")) << "grouped: what finds Priya";
  EXPECT_GT(g.attention[0][3](hers, token_index(g, "Priya")), 0.99f);
}

// Step 9 (issue 46): the masks on the teaching model's wired heads. Masked cells are exactly 0;
// the window of 3 leaves the previous-token head as it was and takes from the others the keys
// they were wired to find.
TEST_F(MultiHeadLesson, Step9TheWindowHidesTheKeysTheWiredHeadsNeed) {
  const LessonStep& s = step(9);
  says(s, "the upper triangle is masked, drawn grey: its weights are exactly zero");
  says(s, "A window of 3 also hides keys more than 3 back: 'hers' loses Priya and keys, the first-token head its first token");
  says(s, "who (h2) finds no name in reach and lands on 'hers' itself, and what (h3) takes 'table'");
  const int W = s.session.request.attention.window;
  ASSERT_EQ(W, 3);
  ASSERT_EQ(s.compare.size(), 1u);
  const auto windowed = maps_of(s.session), plain = maps_of(s.compare[0].session);
  const AttentionRun &w = windowed->run, &p = plain->run;
  ASSERT_EQ(w.info.kind, "teaching");
  ASSERT_EQ(p.info.kind, "teaching");
  EXPECT_EQ(w.info.window, 3);
  EXPECT_EQ(p.info.window, -1);
  for (const AttentionRun* r : {&w, &p})
    for (const LayerMaps& layer : r->attention)
      for (const Map& m : layer)
        for (int i = 0; i < m.rows(); ++i)
          for (int j = 0; j < m.cols(); ++j)
            if (j > i || (r == &w && i - j > W)) EXPECT_EQ(m(i, j), 0.0f) << (r == &w ? "windowed " : "causal ") << i << ", " << j;
  const int hers = token_index(w, "hers"), priya = token_index(w, "Priya"), keys = token_index(w, "keys");
  ASSERT_EQ(hers, 10);
  // h0: unchanged (its key is one back; the other keys' e^-20 weights are fewer).
  EXPECT_LT((w.attention[0][0] - p.attention[0][0]).cwiseAbs().maxCoeff(), 1e-6f);
  // h1: the first column while it is in reach, then rows spread evenly over their W + 1 keys.
  for (int i = 0; i < w.n_tokens(); ++i) {
    EXPECT_GT(p.attention[0][1](i, 0), 0.99f) << "causal, row " << i;
    if (i > W)
      for (int j = i - W; j <= i; ++j) EXPECT_NEAR(w.attention[0][1](i, j), 1.0f / (W + 1), 1e-5f) << "windowed, row " << i << ", key " << j;
  }
  // h2 and h3 from 'hers': Priya and keys without the window; itself and 'table' with it.
  EXPECT_EQ(argmax_in_row(p.attention[0][2], hers), priya);
  EXPECT_EQ(argmax_in_row(p.attention[0][3], hers), keys);
  EXPECT_EQ(argmax_in_row(w.attention[0][2], hers), hers);
  EXPECT_EQ(argmax_in_row(w.attention[0][3], hers), token_index(w, "table"));
  EXPECT_GT(w.attention[0][3](hers, token_index(w, "table")), 0.99f);
}

TEST_F(MultiHeadLesson, Step10Stories260KHasPreviousTokenHeadsAndNoSink) {
  const LessonStep& s = step(10);
  says(s, "L1 h3 and L3 h6 are previous-token heads");
  says(s, "no head puts even a third of a row on <s>");
  says(s, "('girl' is ' g', 'ir', 'l')");
  EXPECT_FALSE(s.needs_pretrained) << "the step brings its model";
  const auto a = maps_of(s.session);
  const AttentionRun& run = a->run;
  EXPECT_EQ(run.info.name, "stories260K");
  const int girl = token_index(run, "▁g");
  ASSERT_GT(girl, 0);
  EXPECT_EQ(run.tokens.at(size_t(girl + 1)), "ir");
  EXPECT_EQ(run.tokens.at(size_t(girl + 2)), "l");
  EXPECT_EQ(run.tokens.at(size_t(s.session.view.queries.at(0))), "▁Lily") << "the query lands on a word";
  for (auto [l, h] : {std::pair{1, 3}, std::pair{3, 6}}) {
    EXPECT_GT(role(*a, l, h, HeadRole::previous), 0.5f) << "L" << l << " h" << h;
    EXPECT_EQ(a->roles.label[size_t(l)][size_t(h)], "previous");
  }
  EXPECT_LT(strongest(*a, HeadRole::first).score, 1.0f / 3);
}

// ---- "What heads do in a trained model" ----

class TrainedHeadsLesson : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(lesson.steps.size(), 7u);
    story = maps_of(lesson.steps[0].session);  // steps 1 to 5 keep step 1's sentence
  }
  const Lesson lesson = shipped("what_heads_do.json");
  const LessonStep& step(int n) { return lesson.steps.at(size_t(n - 1)); }
  std::shared_ptr<const RunAnalysis> story;
};

TEST_F(TrainedHeadsLesson, StepsOneToFiveShowTheSameSentence) {
  for (int n = 1; n <= 5; ++n) {
    EXPECT_EQ(step(n).session.request.model_path, "stories260K") << "step " << n;
    EXPECT_EQ(step(n).session.request.sentence, step(1).session.request.sentence) << "step " << n;
  }
}

TEST_F(TrainedHeadsLesson, Step1LinesAndSpreads) {
  const LessonStep& s = step(1);
  says(s, "reads common words whole (' Lily', ' play')");
  says(s, "some are a thin bright line just below the diagonal, others spread each row over many tokens");
  const AttentionRun& run = story->run;
  EXPECT_GE(token_index(run, "▁Lily"), 0);
  EXPECT_GE(token_index(run, "▁play"), 0);
  EXPECT_GT(strongest(*story, HeadRole::previous).score, 0.5f);
  EXPECT_GT(strongest(*story, HeadRole::broadness).score, 0.7f);
  EXPECT_EQ(run.tokens.at(size_t(s.session.view.queries.at(0))), "▁Lily");
}

TEST_F(TrainedHeadsLesson, Steps2And3PreviousTokenHeads) {
  says(step(2), "L1 h3 puts most of each row on the token just before it (about 0.6 of the row on average)");
  says(step(3), "L3 h6 does the same job in layer 3: again about 0.6 of each row on the previous token");
  for (auto [n, l, h] : {std::tuple{2, 1, 3}, std::tuple{3, 3, 6}}) {
    EXPECT_EQ(step(n).session.view.panel, "head");
    EXPECT_EQ(step(n).session.view.layer, l);
    EXPECT_EQ(step(n).session.view.head, h);
    const float p = role(*story, l, h, HeadRole::previous);
    EXPECT_GT(p, 0.55f) << "L" << l << " h" << h;
    EXPECT_LT(p, 0.7f) << "L" << l << " h" << h;
    // "most of each row": the previous token is the largest weight in most rows.
    const Map& m = story->run.attention[size_t(l)][size_t(h)];
    int on_previous = 0;
    for (int i = 1; i < m.rows(); ++i) on_previous += argmax_in_row(m, i) == i - 1;
    EXPECT_GT(on_previous, (m.rows() - 1) / 2) << "L" << l << " h" << h;
  }
}

TEST_F(TrainedHeadsLesson, Step4HeadRolesRankTheTwoHeadsNearTheTop) {
  says(step(4), "The table opens sorted by the previous column, highest first: L1 h3 and L3 h6 are among the top three");
  EXPECT_EQ(step(4).session.view.panel, "roles");
  EXPECT_EQ(step(4).session.view.roles_sort, "previous");  // the table as the caption says (panel_roles.cpp)
  const std::vector<HeadIndex> ranked = rank_heads(story->roles, int(HeadRole::previous), true);
  for (const HeadIndex want : {HeadIndex{1, 3}, HeadIndex{3, 6}}) {
    const auto it = std::find_if(ranked.begin(), ranked.begin() + 3,
                                 [&](const HeadIndex& x) { return x.layer == want.layer && x.head == want.head; });
    EXPECT_NE(it, ranked.begin() + 3) << "L" << want.layer << " h" << want.head;
  }
}

TEST_F(TrainedHeadsLesson, Step5NoRealSink) {
  says(step(5), "its strongest first-token head, L4 h5, puts less than a third of a row on <s> on average");
  const Best b = strongest(*story, HeadRole::first);
  EXPECT_EQ(b.layer, 4);
  EXPECT_EQ(b.head, 5);
  EXPECT_LT(b.score, 1.0f / 3);
  EXPECT_EQ(story->run.tokens[0], "<s>");
  EXPECT_EQ(step(5).session.view.layer, 4);
  EXPECT_EQ(step(5).session.view.head, 5);
}

TEST_F(TrainedHeadsLesson, Step6InductionBuiltInTheTeachingModelAndAbsentInStories260K) {
  const LessonStep& s = step(6);
  says(s, "The teaching model's L1 h0 (framed, in the block labelled \"teaching model\") is built to do it");
  says(s, "no head puts even a quarter of a row there, and after the second 'Lily' it predicts ' was', not ' saw'");
  const auto a = maps_of(s.session);
  const AttentionRun& run = a->run;
  // <s> then the sentence twice: the second copy's token p looks back to p - n + 1.
  const int first = token_index(run, "▁Lily"), second = token_index(run, "▁Lily", 1), n = second - first;
  ASSERT_EQ(first, 1);
  ASSERT_EQ(run.n_tokens(), 1 + 2 * n);
  ASSERT_EQ(s.session.view.queries.at(0), second);
  for (int l = 0; l < run.n_layers(); ++l)
    for (int h = 0; h < run.n_heads(); ++h) {
      double sum = 0;
      for (int p = second; p < run.n_tokens(); ++p) sum += run.attention[size_t(l)][size_t(h)](p, p - n + 1);
      EXPECT_LT(sum / n, 0.25) << "L" << l << " h" << h;
    }
  EXPECT_EQ(run.next_tokens.at(size_t(second)), "▁was");
  EXPECT_EQ(run.tokens.at(size_t(first + 1)), "▁saw");
  // The compare entry: the teaching model on the same sentence.
  ASSERT_EQ(s.compare.size(), 1u);
  const auto t = maps_of(s.compare[0].session);
  const AttentionRun& tr = t->run;
  EXPECT_EQ(tr.info.kind, "teaching");
  const int t2 = token_index(tr, "Lily", 1), tn = t2 - token_index(tr, "Lily");
  ASSERT_GT(tn, 0);
  for (int p = t2; p < tr.n_tokens(); ++p) EXPECT_GT(tr.attention[1][0](p, p - tn + 1), 0.99f) << "row " << p;
  EXPECT_EQ(tr.next_tokens.at(size_t(t2)), "saw");
  EXPECT_GE(t->roles.scores[1][0][HeadRole::induction], 0.9f);
}

TEST_F(TrainedHeadsLesson, Step7ScoresTheReadersSentence) {
  const LessonStep& s = step(7);
  says(s, "The Head roles tab scores them for your sentence");
  const auto a = maps_of(s.session);
  EXPECT_EQ(a->roles.n_layers(), 5);
  for (const char* control : {"sentence", "layer", "head", "panel"})
    EXPECT_NE(std::find(s.unlocked.begin(), s.unlocked.end(), control), s.unlocked.end()) << control;
}

}  // namespace
}  // namespace hs

// ---- "Change one word: which heads notice?" (minimal pairs, core/analysis/contrast.h) ----

namespace hs {
namespace {

class MinimalPairsLesson : public ::testing::Test {
 protected:
  const Lesson lesson = shipped("which_heads_notice.json");
  const LessonStep& step(int n) { return lesson.steps.at(size_t(n - 1)); }
  // The step's sentence A and B through the step's model, compared.
  ContrastResult contrast_of(const Session& s, std::shared_ptr<const RunAnalysis>& a, std::shared_ptr<const RunAnalysis>& b) {
    a = analyse(s.request);
    Session other = s;
    other.request.sentence = s.contrast;
    b = analyse(other.request);
    return contrast_runs(a->run, b->run);
  }
};

TEST_F(MinimalPairsLesson, Step1OnlyTheInductionAndDuplicateHeadsMove) {
  says(step(1), "Only two heads moved: the induction head L1 h0 and the duplicate head L1 h1");
  says(step(1), "The previous-token head L0 h0 did not move at all");
  std::shared_ptr<const RunAnalysis> a, b;
  const ContrastResult c = contrast_of(step(1).session, a, b);
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      const bool moves = l == 1 && (h == 0 || h == 1);
      if (moves) EXPECT_GT(c.heads[1][size_t(h)].distance, 0.05f) << "L1 h" << h;
      else EXPECT_LT(c.heads[size_t(l)][size_t(h)].max_row, 1e-6f) << "L" << l << " h" << h;
    }
}

TEST_F(MinimalPairsLesson, Step2TheMostChangedHeadsAndTheirRow) {
  says(step(2), "The two heads that moved most are L2 h4 and L2 h6");
  says(step(2), "puts most of its row on 'g'");
  says(step(2), "Most of the 40 heads moved less than 0.15");
  std::shared_ptr<const RunAnalysis> a, b;
  const ContrastResult c = contrast_of(step(2).session, a, b);
  std::vector<std::pair<float, int>> order;
  int small = 0;
  for (int l = 0; l < 5; ++l)
    for (int h = 0; h < 8; ++h) {
      order.emplace_back(c.heads[size_t(l)][size_t(h)].distance, l * 8 + h);
      small += c.heads[size_t(l)][size_t(h)].distance < 0.15f;
    }
  std::sort(order.rbegin(), order.rend());
  EXPECT_EQ(order[0].second, 2 * 8 + 4);
  EXPECT_EQ(order[1].second, 2 * 8 + 6);
  EXPECT_GT(small, 20);
  const int second_do = token_index(a->run, "\xE2\x96\x81" "do", 1), g = token_index(a->run, "g");
  ASSERT_GE(second_do, 0);
  for (int h : {4, 6}) {
    const Map& m = a->run.attention[2][size_t(h)];
    EXPECT_EQ(argmax_in_row(m, second_do), g) << "L2 h" << h;
    EXPECT_GT(m(second_do, g), 0.5f) << "L2 h" << h;
  }
}

}  // namespace
}  // namespace hs
