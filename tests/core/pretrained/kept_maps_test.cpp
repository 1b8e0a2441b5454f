// Maps where they are asked for (issue 50): a long-input run that keeps one layer's (or one head's)
// whole maps must give exactly the maps of the full-memory run, though every head streamed in
// blocks of query rows; the memory limit counts only the maps kept. Oracle: the same request run
// with every [T, T] map kept (MapRecorder, the engine's whole-map path).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "core/analysis/run_analysis.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"
#include "core/util/runtime_config.h"
#include "pretrained_test_util.h"

namespace hs {
namespace {

// Rows per streamed block: small, so that the inputs here stream in several blocks.
constexpr int kKeptTestBlockRows = 48;

// Every cell of the kept maps against the full run's, to 1e-6; the first mismatch names the cell.
void expect_kept_equal_full(const AttentionRun& full, const AttentionRun& kept, const MapSelection& keep) {
  ASSERT_TRUE(kept.compact());
  ASSERT_EQ(kept.n_tokens(), full.n_tokens());
  const int T = full.n_tokens();
  ASSERT_GT(T, 2 * kKeptTestBlockRows) << "the input must stream in several blocks of query rows";
  int compared = 0;
  for (int l = 0; l < full.n_layers(); ++l)
    for (int h = 0; h < full.n_heads(); ++h) {
      const Map& k = kept.kept[size_t(l)][size_t(h)];
      if (!keep.keeps(l, h)) {
        EXPECT_EQ(k.size(), 0) << "layer " << l << ", head " << h << " was not asked for but is held";
        continue;
      }
      const Map& a = full.attention[size_t(l)][size_t(h)];  // [T, T]
      ASSERT_EQ(k.rows(), T) << "layer " << l << ", head " << h;
      ASSERT_EQ(k.cols(), T) << "layer " << l << ", head " << h;
      for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
          const float error = std::abs(k(i, j) - a(i, j));
          ASSERT_LE(error, 1e-6f) << "layer " << l << ", head " << h << ", row " << i << ", column " << j
                                  << ": kept " << k(i, j) << ", full " << a(i, j) << ", error " << error;
        }
      ++compared;
    }
  EXPECT_EQ(compared, keep.count(full.n_layers(), full.n_heads()));
}

void expect_kept_path_exact(const ModelRequest& request, const MapSelection& keep) {
  const std::unique_ptr<Prepared> prepared = prepare(request);
  const AttentionRun full = prepared->run(RunOptions{});
  RunOptions options;
  options.display_size = 16;
  options.keep = keep;
  options.stream_rows = kKeptTestBlockRows;
  expect_kept_equal_full(full, prepared->run(options), keep);
}

ModelRequest kept_test_stories_request() {
  ModelRequest r;
  r.model_path = test::model_file("stories260K/stories260K.bin");
  r.tokenizer = test::model_file("stories260K/tok512.bin");
  r.sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside in the sun with her "
               "dog, and every day they ran to the park to see the ducks.";
  r.generate = 120;
  return r;
}

bool kept_test_have_stories() {
  return !test::model_file("stories260K/stories260K.bin").empty() && !test::model_file("stories260K/tok512.bin").empty();
}

TEST(KeptMaps, Stories260KOneLayerEqualsFullRun) {
  if (!kept_test_have_stories()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  expect_kept_path_exact(kept_test_stories_request(), MapSelection::of_layer(2));
}

TEST(KeptMaps, Stories260KOneHeadEqualsFullRun) {
  if (!kept_test_have_stories()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  expect_kept_path_exact(kept_test_stories_request(), MapSelection::of_head(4, 5));
}

TEST(KeptMaps, SyntheticLayerOneHeadEqualsFullRun) {
  ModelRequest r;
  for (int i = 0; i < 150; ++i) r.sentence += (i % 7 ? "word " : "the ");
  r.attention.d_model = 32;
  r.attention.n_heads = 4;
  r.attention.n_kv_heads = 2;
  r.attention.causal = true;
  r.seed = 5;
  expect_kept_path_exact(r, MapSelection::of_head(0, 3));
}

TEST(KeptMaps, NothingKeptHoldsNoMap) {
  if (!kept_test_have_stories()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  const std::unique_ptr<Prepared> prepared = prepare(kept_test_stories_request());
  RunOptions options;
  options.display_size = 16;
  options.keep = MapSelection::none();
  const AttentionRun run = prepared->run(options);
  for (const LayerMaps& maps : run.kept)
    for (const Map& m : maps) EXPECT_EQ(m.size(), 0);
}

// Sets the engine's map memory limit for one test.
struct KeptTestMapLimit {
  RuntimeConfig before = runtime_config();
  explicit KeptTestMapLimit(int64_t bytes) {
    RuntimeConfig c = before;
    c.max_map_bytes = bytes;
    set_runtime_config(c);
  }
  ~KeptTestMapLimit() { set_runtime_config(before); }
};

std::string kept_test_refusal_of(const ModelRequest& request, const AnalysisOptions& options) {
  try {
    analyse(request, options);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The refusal of whole maps of every layer still fires, with its numbers; one layer under the same
// limit runs (only its maps count), and a layer whose maps alone pass the limit is refused, naming them.
TEST(KeptMaps, MemoryLimitCountsOnlyKeptMaps) {
  if (!kept_test_have_stories()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  ModelRequest request = kept_test_stories_request();
  request.generate = 0;  // Prepared::tokens() counts the text's tokens, not those still to generate
  const int64_t T = prepare(request)->tokens();  // 5 layers x 8 heads of stories260K
  const int64_t map = T * T * int64_t(sizeof(float));
  const KeptTestMapLimit limit(10 * map);  // 10 maps: every map (40) is over, one layer (8) under
  AnalysisOptions whole;
  whole.maps = MapMode::whole;
  whole.roles = false;  // the induction probe's own whole maps (at its probe length) would count too
  const std::string all = kept_test_refusal_of(request, whole);
  EXPECT_NE(all.find(std::to_string(T) + " tokens x 40 maps of T x T floats need"), std::string::npos) << all;
  EXPECT_NE(all.find("the limit is"), std::string::npos) << all;

  AnalysisOptions one = whole;
  one.keep = MapSelection::of_layer(3);
  const std::shared_ptr<const RunAnalysis> a = analyse(request, one);
  EXPECT_TRUE(a->run.compact());
  ASSERT_EQ(a->run.kept[3].size(), 8u);
  EXPECT_EQ(a->run.kept[3][7].rows(), T);
  EXPECT_EQ(a->run.kept[2][0].size(), 0);

  const KeptTestMapLimit tight(5 * map);  // one layer (8 maps) is over, one head under
  const std::string layer = kept_test_refusal_of(request, one);
  EXPECT_NE(layer.find(std::to_string(T) + " tokens x 8 maps of T x T floats need"), std::string::npos) << layer;
  AnalysisOptions head = whole;
  head.keep = MapSelection::of_head(3, 1);
  EXPECT_EQ(kept_test_refusal_of(request, head), "");
}

// Under the long-input rule's size a request for one layer keeps every map whole, as before.
TEST(KeptMaps, ShortInputStaysWholeMaps) {
  if (!kept_test_have_stories()) GTEST_SKIP() << "stories260K not found under " << test::models_dir();
  AnalysisOptions one;
  one.maps = MapMode::whole;
  one.keep = MapSelection::of_layer(1);
  const std::shared_ptr<const RunAnalysis> a = analyse(kept_test_stories_request(), one);
  EXPECT_FALSE(a->run.compact());
  EXPECT_EQ(a->run.n_layers(), 5);
}

}  // namespace
}  // namespace hs
