// Long-input mode on real and synthetic requests: run with RunOptions::display_size must give
// the block maxima, head numbers and rows of the whole-map run of the same request.
#include <gtest/gtest.h>

#include <string>

#include "core/analysis/head_stats.h"
#include "core/model/model_request.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

void expect_compact_matches_full(const ModelRequest& request, int display_size) {
  const std::unique_ptr<Prepared> prepared = prepare(request);
  RunOptions full_options;
  const AttentionRun full = prepared->run(full_options);
  RunOptions compact_options;
  compact_options.display_size = display_size;
  const AttentionRun compact = prepared->run(compact_options);
  ASSERT_FALSE(full.compact());
  ASSERT_TRUE(compact.compact());
  ASSERT_EQ(compact.tokens, full.tokens);
  ASSERT_EQ(compact.next_token_ids, full.next_token_ids);
  ASSERT_EQ(compact.n_layers(), full.n_layers());
  const int T = full.n_tokens(), f = compact.map_factor, p = (T + f - 1) / f;
  ASSERT_LE(p, display_size);
  for (int l = 0; l < full.n_layers(); ++l)
    for (int h = 0; h < full.n_heads(); ++h) {
      const Map& a = full.attention[size_t(l)][size_t(h)];
      const Map& d = compact.attention[size_t(l)][size_t(h)];
      ASSERT_EQ(d.rows(), p);
      for (int r = 0; r < p; ++r)
        for (int s = 0; s < p; ++s) {
          const float want = a.block(r * f, s * f, std::min(f, T - r * f), std::min(f, T - s * f)).maxCoeff();
          ASSERT_NEAR(d(r, s), want, 1e-5f) << "layer " << l << " head " << h << " display cell (" << r << ", " << s << ")";
        }
      const HeadNumbers& n = compact.head_numbers[size_t(l)][size_t(h)];
      EXPECT_NEAR(n.mean_entropy, mean_entropy(a), 1e-4f) << "layer " << l << " head " << h;
      EXPECT_NEAR(n.max, a.maxCoeff(), 1e-6f) << "layer " << l << " head " << h;
      for (int i = 0; i < T; i += 7) {
        const Vec row = compact.exact->row(l, h, i);
        for (int j = 0; j < T; ++j)
          ASSERT_NEAR(row[j], a(i, j), 1e-5f) << "layer " << l << " head " << h << " exact cell (" << i << ", " << j << ")";
      }
    }
}

TEST(CompactRun, SyntheticSentenceMatchesWholeMaps) {
  ModelRequest r;
  r.sentence = "the quick brown fox jumps over the lazy dog while the cat sleeps on the warm mat by the door";
  r.attention.d_model = 32;
  r.attention.n_heads = 8;
  r.attention.n_kv_heads = 2;
  r.attention.causal = true;
  r.seed = 3;
  expect_compact_matches_full(r, 8);
}

TEST(CompactRun, Stories260KMatchesWholeMaps) {
  const std::string model = test::model_file("stories260K/stories260K.bin");
  const std::string tokenizer = test::model_file("stories260K/tok512.bin");
  if (model.empty() || tokenizer.empty()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  ModelRequest r;
  r.model_path = model;
  r.tokenizer = tokenizer;
  r.sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside in the sun.";
  r.generate = 12;
  expect_compact_matches_full(r, 10);
}

}  // namespace
}  // namespace hs
