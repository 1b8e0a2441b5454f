// Head roles on a real model (issue 18): stories260K's previous-token heads are found, its
// induction probe runs with BOS first, and the BOS score follows the BOS token.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/analysis/run_analysis.h"
#include "core/analysis/induction_probe.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

const char* kStory =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a "
    "big, red ball. She wanted to play with it, but it was too high.";

std::shared_ptr<const RunAnalysis> stories(const std::string& model, const std::string& tok) {
  ModelRequest r;
  r.model_path = model;
  r.tokenizer = tok;
  r.sentence = kStory;
  return analyse(r);
}

TEST(HeadRolesStories, PreviousTokenHeadsAreFound) {
  const std::string model = test::model_file("stories260K/stories260K.bin"), tok = test::model_file("stories260K/tok512.bin");
  if (model.empty() || tok.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  const auto a = stories(model, tok);
  const HeadRoles& roles = a->roles;
  ASSERT_EQ(roles.n_layers(), 5);
  ASSERT_EQ(roles.n_heads(), 8);
  const std::vector<HeadIndex> ranked = rank_heads(roles, int(HeadRole::previous), true);
  std::vector<std::pair<int, int>> top3;
  for (size_t i = 0; i < 3; ++i) top3.push_back({ranked[i].layer, ranked[i].head});
  for (const auto& want : {std::make_pair(1, 3), std::make_pair(3, 6)}) {
    EXPECT_NE(std::find(top3.begin(), top3.end(), want), top3.end())
        << "L" << want.first << " h" << want.second << " should be among the 3 strongest previous-token heads";
    EXPECT_GT(roles.scores[size_t(want.first)][size_t(want.second)][HeadRole::previous], 0.5f);
    EXPECT_EQ(roles.label[size_t(want.first)][size_t(want.second)], "previous");
  }
}

TEST(HeadRolesStories, ProbeStartsWithBosAndBosScoreFollowsTheToken) {
  const std::string model = test::model_file("stories260K/stories260K.bin"), tok = test::model_file("stories260K/tok512.bin");
  if (model.empty() || tok.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  const auto a = stories(model, tok);
  const HeadRoles& roles = a->roles;
  ASSERT_TRUE(roles.induction_measured);
  ASSERT_EQ(roles.probe_ids.size(), 65u) << "BOS + 2 x 32";
  EXPECT_EQ(roles.probe_ids[0], 1) << "llama2.c's BOS";
  ASSERT_EQ(a->run.token_ids[0], 1);
  for (int l = 0; l < 5; ++l)
    for (int h = 0; h < 8; ++h) {
      const HeadRoleScores& s = roles.scores[size_t(l)][size_t(h)];
      // BOS only at position 0: the BOS score is the first-token score.
      EXPECT_NEAR(s[HeadRole::bos], s[HeadRole::first], 1e-6f) << "L" << l << " h" << h;
      // 260K parameters learn no induction (the PyTorch reference agrees: at most 0.11, L0 h5).
      EXPECT_LT(s[HeadRole::induction], 0.2f) << "L" << l << " h" << h;
      EXPECT_FALSE(std::isnan(s[HeadRole::duplicate])) << "the story repeats tokens";
    }
}

TEST(HeadRolesStories, ProbePredictsAfterItsLastTokenOnly) {
  const std::string model = test::model_file("stories260K/stories260K.bin"), tok = test::model_file("stories260K/tok512.bin");
  if (model.empty() || tok.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  ModelRequest r;
  r.model_path = model;
  r.tokenizer = tok;
  r.sentence = kStory;
  const std::unique_ptr<Prepared> prepared = prepare(r);
  const ProbeRun probe = run_induction_probe(*prepared, RoleOptions{}, 0);
  ASSERT_EQ(probe.ids.size(), 65u);
  // The roles read only the probe's maps: no [vocab] row is computed for the positions before its last token.
  const std::vector<int>& next = probe.run.next_token_ids;
  ASSERT_EQ(next.size(), 65u);
  for (size_t i = 0; i + 1 < next.size(); ++i) EXPECT_EQ(next[i], -1) << "position " << i;
  EXPECT_GE(next.back(), 0);
}

}  // namespace
}  // namespace hs
