// Issue 14's finding on a real model: stories260K's head difference of the same two heads shrinks
// like 1/T as the story grows (0.056, 0.019, 0.009 at 16, 39, 83 tokens), which says more about
// the sentence's length than about the heads; the head distance stays put.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/analysis/run_analysis.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

TEST(HeadDistance, Stories260KHeadsMeasureTheSameAtEveryLength) {
  const std::string model = test::model_file("stories260K/stories260K.bin");
  const std::string tokenizer = test::model_file("stories260K/tok512.bin");
  if (model.empty() || tokenizer.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  const std::string a = "Once upon a time, there was a little girl named Lily.";
  const std::string b = a + " She loved to play outside in the park with her friends every day.";
  const std::string c = b + " One day, she saw a big red ball under a tree. She ran to get it, but a dog took it first. Lily was sad.";
  std::vector<float> distance, difference;
  std::vector<int> lengths;
  for (const std::string& sentence : {a, b, c}) {
    ModelRequest r;
    r.model_path = model;
    r.tokenizer = tokenizer;
    r.sentence = sentence;
    AnalysisOptions o;
    o.spectrum = false;
    const auto an = analyse(r, o);
    lengths.push_back(an->run.n_tokens());
    distance.push_back(an->distance[1](3, 6));  // L1 h3 and h6: two previous-token-like heads
    difference.push_back(an->difference[1](3, 6));
  }
  ASSERT_LT(lengths[0], 25);
  ASSERT_GT(lengths[2], 75);
  EXPECT_GT(difference[0] / difference[2], 4.0f) << "the difference shrinks with T: " << difference[0] << " at T="
                                                 << lengths[0] << ", " << difference[2] << " at T=" << lengths[2];
  for (float d : distance) {
    EXPECT_GT(d, 0.75f * distance[0]) << "the distance does not shrink with T";
    EXPECT_LT(d, 1.25f * distance[0]);
  }
}

}  // namespace
}  // namespace hs
