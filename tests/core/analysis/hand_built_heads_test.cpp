// Hand-built weights with a known job (issue 18's check of the role scores, issue 19's teaching
// model): every head of the teaching model was written to do one thing, so head_roles must score
// it near 1 on that role and low on the others, and its maps must equal what the construction
// says (hand-computed weights such as 1 / (1 + i e^-20)).
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/run_analysis.h"
#include "core/model/teaching_model.h"
#include "core/session/session_file.h"
#include "core/text/teaching_vocabulary.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// Repeats "the", "keys" and "Priya": the duplicate score is measured on several rows. The first
// word does not repeat (the first-token head's copies would count as duplicates).
const char* kText = "once the keys that Priya left on the table were not hers . Priya found the keys in the park";

std::shared_ptr<const RunAnalysis> teaching(const std::string& sentence) {
  ModelRequest r;
  r.model_path = "teaching";
  r.sentence = sentence;
  return analyse(r);
}

int token_index(const AttentionRun& run, const std::string& label, int nth = 0) {
  for (int i = 0; i < run.n_tokens(); ++i)
    if (run.tokens[size_t(i)] == label && nth-- == 0) return i;
  return -1;
}

// The role of each head that head_roles can see ("who" and "what" have none: checked below).
const HeadRole kRole[2][4] = {{HeadRole::previous, HeadRole::first, HeadRole::local, HeadRole::local},
                              {HeadRole::induction, HeadRole::duplicate, HeadRole::self, HeadRole::broadness}};
bool has_role(int l, int h) { return !(l == 0 && (h == 2 || h == 3)); }

TEST(HandBuiltWeightsWithAKnownJob, EachHeadScoresNearOneOnItsRoleAndLowOnTheOthers) {
  const auto a = teaching(kText);
  const HeadRoles& roles = a->roles;
  ASSERT_EQ(roles.n_layers(), 2);
  ASSERT_EQ(roles.n_heads(), 4);
  ASSERT_TRUE(roles.induction_measured);
  ASSERT_EQ(roles.probe_ids.size(), 64u) << "no BOS; 2 x 32 ids within 64 positions";
  // The roles that name a job (the label's candidates); local and broadness describe a spread.
  const HeadRole jobs[] = {HeadRole::previous, HeadRole::first, HeadRole::self, HeadRole::duplicate, HeadRole::induction};
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      SCOPED_TRACE("L" + std::to_string(l) + " h" + std::to_string(h) + " (" + teaching_head_jobs()[size_t(l)][size_t(h)] + ")");
      const HeadRoleScores& s = roles.scores[size_t(l)][size_t(h)];
      EXPECT_TRUE(std::isnan(s[HeadRole::bos])) << "the teaching model adds no BOS";
      if (has_role(l, h)) {
        EXPECT_GE(s[kRole[l][h]], 0.9f) << head_role_name(kRole[l][h]);
      }
      for (HeadRole r : jobs) {
        if (has_role(l, h) && r == kRole[l][h]) continue;
        EXPECT_LT(s[r], 0.3f) << head_role_name(r);
      }
    }
  // Labels: the strongest role, as the Head roles view and `headscope-cli heads` show them.
  EXPECT_EQ(roles.label[0][0], "previous");
  EXPECT_EQ(roles.label[0][1], "first");
  EXPECT_EQ(roles.label[1][0], "induction");
  EXPECT_EQ(roles.label[1][1], "duplicate");
  EXPECT_EQ(roles.label[1][2], "self");
  EXPECT_EQ(roles.label[1][3], "broad");
}

// Issue 36 (finding 9): the claim "below 0.3 on the others" holds on a text whose first word does
// not come back. On the app's default sentence "the" returns at position 6, and the first-token
// head's weight on position 0 is then weight on an earlier copy: its duplicate score is 1.0. That
// is the one exception (docs/teaching-model.md and the README say so).
TEST(HandBuiltWeightsWithAKnownJob, OnTheDefaultSentenceOnlyTheFirstTokenHeadScoresOnDuplicate) {
  const std::string sentence = default_session().request.sentence;
  ASSERT_EQ(sentence.rfind("the ", 0), 0u) << "the default sentence changed: " << sentence;
  const auto a = teaching(sentence);
  const HeadRoles& roles = a->roles;
  const HeadRole jobs[] = {HeadRole::previous, HeadRole::first, HeadRole::self, HeadRole::duplicate, HeadRole::induction};
  int exceptions = 0;
  for (int l = 0; l < 2; ++l)
    for (int h = 0; h < 4; ++h) {
      const HeadRoleScores& s = roles.scores[size_t(l)][size_t(h)];
      if (has_role(l, h)) {
        EXPECT_GE(s[kRole[l][h]], 0.9f) << "L" << l << " h" << h;
      }
      for (HeadRole r : jobs) {
        if ((has_role(l, h) && r == kRole[l][h]) || s[r] < 0.3f) continue;
        ++exceptions;
        EXPECT_TRUE(l == 0 && h == 1 && r == HeadRole::duplicate) << "L" << l << " h" << h << " " << head_role_name(r) << " " << s[r];
      }
    }
  EXPECT_EQ(exceptions, 1);
  EXPECT_GT(roles.scores[0][1][HeadRole::duplicate], 0.99f) << "the first-token head on the returning \"the\"";
  EXPECT_EQ(roles.label[0][1], "first") << "its label stays first (first wins the tie at 1.0)";
}

TEST(HandBuiltWeightsWithAKnownJob, WhoAndWhatHeadsFindTheAntecedents) {
  const auto a = teaching("the keys that Priya left on the table were not hers");
  const AttentionRun& run = a->run;
  ASSERT_EQ(run.n_tokens(), 11);
  const int hers = token_index(run, "hers"), priya = token_index(run, "Priya"), keys = token_index(run, "keys");
  ASSERT_EQ(hers, 10);
  const Map& who = run.attention[0][2];
  const Map& what = run.attention[0][3];
  EXPECT_GT(who(hers, priya), 0.99f) << "the 'hers' row of the who head is on 'Priya'";
  EXPECT_GT(what(hers, keys), 0.99f) << "the 'hers' row of the what head is on 'keys' (the first noun), not 'table'";
  // The nearest name wins: "Lily gave Tom her ball" -> 'her' finds Tom.
  const auto b = teaching("Lily gave Tom her ball");
  EXPECT_GT(b->run.attention[0][2](3, 2), 0.99f);
  // Rows without a pronoun have nothing to look for: uniform over what they see.
  for (int i = 0; i < hers; ++i)
    for (int j = 0; j <= i; ++j) EXPECT_NEAR(who(i, j), 1.0f / float(i + 1), 1e-6f) << "row " << i;
}

TEST(HandBuiltWeightsWithAKnownJob, MapsEqualTheHandComputedWeights) {
  const auto a = teaching(kText);
  const AttentionRun& run = a->run;
  const int T = run.n_tokens();
  const double e20 = std::exp(-20.0);
  for (int i = 1; i < T; ++i) {
    // Previous: score 20 on key i - 1, 0 on the other i keys.
    EXPECT_NEAR(run.attention[0][0](i, i - 1), 1.0 / (1.0 + i * e20), 1e-6) << "row " << i;
    // First: score 20 on key 0.
    EXPECT_NEAR(run.attention[0][1](i, 0), 1.0 / (1.0 + i * e20), 1e-6) << "row " << i;
    // Self: score 20 on key i.
    EXPECT_NEAR(run.attention[1][2](i, i), 1.0 / (1.0 + i * e20), 1e-6) << "row " << i;
    // Broad: 1 / (i + 1) on every key it sees.
    for (int j = 0; j <= i; ++j) EXPECT_NEAR(run.attention[1][3](i, j), 1.0 / (i + 1), 1e-6) << i << ", " << j;
  }
  // Duplicate: the second "keys" puts its weight on the first.
  const int keys1 = token_index(run, "keys"), keys2 = token_index(run, "keys", 1);
  ASSERT_GT(keys2, keys1);
  EXPECT_GT(run.attention[1][1](keys2, keys1), 0.999f);
}

TEST(HandBuiltWeightsWithAKnownJob, TheInductionPairPredictsTheRepeat) {
  const std::string once = "Lily gave Tom a red ball in the park .";
  const auto a = teaching(once + " " + once);
  const AttentionRun& run = a->run;
  const int n = 10, T = run.n_tokens();
  ASSERT_EQ(T, 2 * n);
  // No earlier copy: no guess (rows 0 to 2 see at most two keys besides the first and still
  // put 0.5 or more on one of them).
  for (int p = 3; p < n; ++p) EXPECT_EQ(run.next_tokens[size_t(p)], "<unk>") << "row " << p;
  for (int p = n; p < T - 1; ++p) {
    // The induction head looks at the token after the earlier copy and predicts it.
    EXPECT_GT(run.attention[1][0](p, p - n + 1), 0.99f) << "row " << p;
    EXPECT_EQ(run.next_tokens[size_t(p)], run.tokens[size_t(p + 1)]) << "after " << run.tokens[size_t(p)];
  }
  // Greedy continuation (incremental, with the key/value cache) keeps repeating.
  ModelRequest r;
  r.model_path = "teaching";
  r.sentence = once + " " + once;
  r.generate = 5;
  const AttentionRun g = prepare(r)->run({});
  ASSERT_EQ(g.n_tokens(), T + 5);
  for (int k = 0; k < 5; ++k) EXPECT_EQ(g.tokens[size_t(T + k)], run.tokens[size_t(k)]) << "generated " << k;
}

TEST(HandBuiltWeightsWithAKnownJob, CachedForwardEqualsTheWholeForward) {
  const TeachingModel& m = *teaching_model();
  const std::vector<int> ids = teaching_tokenizer()->encode("Sam saw a cat . Sam saw a cat and a dog");
  const Map whole = m.forward(ids, nullptr, 1);
  KvCache cache;
  Map part = m.forward_cached(std::vector<int>(ids.begin(), ids.begin() + 5), cache);
  for (size_t t = 5; t < ids.size(); ++t) {
    const Map row = m.forward_cached({ids[t]}, cache);
    EXPECT_LT((row.row(0) - whole.row(Eigen::Index(t))).cwiseAbs().maxCoeff(), 1e-5f) << "position " << t;
  }
  EXPECT_LT((part - whole.topRows(5)).cwiseAbs().maxCoeff(), 1e-5f);
}

TEST(HandBuiltWeightsWithAKnownJob, UnknownWordsAndLongTextsAreSaid) {
  const auto a = teaching("Priya met a zorblax");
  EXPECT_EQ(a->run.tokens, (std::vector<std::string>{"Priya", "met", "a", "<unk>"}));
  EXPECT_EQ(a->run.notes, std::vector<std::string>{"1 word unknown to the teaching model (read as <unk>): zorblax"});
  std::string long_text;
  for (int i = 0; i < 65; ++i) long_text += "cat ";
  try {
    teaching(long_text);
    ADD_FAILURE() << "65 tokens passed the 64 positions";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("64"), std::string::npos) << e.what();
  }
  ModelRequest r;
  r.model_path = "teaching";
  r.sentence = "cat";
  r.tokenizer = "tok512.bin";
  EXPECT_THROW(prepare(r), InputError);
}

}  // namespace
}  // namespace hs
