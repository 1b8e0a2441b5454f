// Zoomed regions of a map (core/analysis/map_region.h): in long-input mode, rows recomputed from
// q and k must give the same cells as whole maps of the same run (the oracle), exact cells at full
// zoom, block maxima of the whole map's cells when zoomed out, and the display blocks when nothing
// finer fits. The same for the strongest cell of a block and for the generate/default-sentence rule.
#include "core/analysis/map_region.h"

#include <gtest/gtest.h>

#include <string>

#include "core/analysis/run_analysis.h"
#include "core/model/model_request.h"
#include "core/render/peak_reduce.h"
#include "core/util/errors.h"

namespace hs {
namespace {

ModelRequest long_request(int tokens) {
  ModelRequest r;
  for (int i = 0; i < tokens; ++i) r.sentence += "w" + std::to_string(i % 89) + " ";
  r.attention.d_model = 16;
  r.attention.n_heads = 4;
  r.attention.causal = true;
  r.attention.window = 40;  // a sliding window: many exact zeros, peaks away from the diagonal
  return r;
}

struct Runs {
  std::shared_ptr<const RunAnalysis> whole, blocks;
};

const Runs& runs() {
  static const Runs r = [] {
    Runs out;
    const ModelRequest req = long_request(300);
    AnalysisOptions w;
    w.maps = MapMode::whole;
    out.whole = analyse(req, w);
    AnalysisOptions b;
    b.maps = MapMode::long_input;
    b.display_size = 32;  // blocks of 10 tokens
    out.blocks = analyse(req, b);
    return out;
  }();
  return r;
}

// The largest |a - b| over the cells, with where it is.
void expect_same(const Map& got, const Map& want, const std::string& what) {
  ASSERT_EQ(got.rows(), want.rows()) << what;
  ASSERT_EQ(got.cols(), want.cols()) << what;
  float worst = 0;
  int wi = 0, wj = 0;
  for (int i = 0; i < got.rows(); ++i)
    for (int j = 0; j < got.cols(); ++j)
      if (std::abs(got(i, j) - want(i, j)) > worst) worst = std::abs(got(i, j) - want(i, j)), wi = i, wj = j;
  EXPECT_LT(worst, 1e-5f) << what << ": cell (" << wi << ", " << wj << ") differs by " << worst;
}

TEST(MapRegion, LongInputZoomedInIsExactCells) {
  const Runs& r = runs();
  ASSERT_TRUE(r.blocks->long_input());
  ASSERT_EQ(r.blocks->run.map_factor, 10);
  const TokenRegion region{137, 161, 120, 150};  // 24 queries x 30 keys
  for (int head = 0; head < 4; ++head) {
    const RegionMap m = exact_region(r.blocks->run, 0, head, region, 64);
    EXPECT_EQ(m.factor, 1);
    EXPECT_TRUE(m.exact);
    EXPECT_TRUE(m.region == region);
    const Map& whole = r.whole->run.attention[0][size_t(head)];
    expect_same(m.cells, whole.block(137, 120, 24, 30), "head " + std::to_string(head));
    ASSERT_EQ(m.row_labels.size(), 24u);
    EXPECT_EQ(m.row_labels[0], r.whole->run.tokens[137]);
    EXPECT_EQ(m.col_labels[29], r.whole->run.tokens[149]);
  }
}

TEST(MapRegion, OpenedHeadIsTheWholeExactMapWithProgressAndStop) {
  const Runs& r = runs();
  for (int head = 0; head < 4; ++head) {
    Map got;
    std::vector<int> seen;
    ASSERT_TRUE(exact_head_map(r.blocks->run, 0, head, got, [&](int done, int total) {
      EXPECT_EQ(total, 300);
      seen.push_back(done);
      return true;
    }));
    expect_same(got, r.whole->run.attention[0][size_t(head)], "opened head " + std::to_string(head));
    ASSERT_EQ(seen.size(), size_t((300 + kExactMapRows - 1) / kExactMapRows));
    EXPECT_EQ(seen.front(), kExactMapRows);
    EXPECT_EQ(seen.back(), 300);
    // Its regions are the zoomed cells exact_region gives.
    const TokenRegion region{137, 161, 120, 150};
    expect_same(region_of_map(r.blocks->run, got, region, 64).cells, exact_region(r.blocks->run, 0, head, region, 64).cells,
                "region of the opened head " + std::to_string(head));
    expect_same(region_of_map(r.blocks->run, got, {0, 300, 0, 300}, 32).cells,
                region_of_map(r.whole->run, r.whole->run.attention[0][size_t(head)], {0, 300, 0, 300}, 32).cells,
                "zoomed-out blocks of the opened head " + std::to_string(head));
  }
  Map copy = r.whole->run.attention[0][1];
  const RegionMap whole = whole_map_region(r.blocks->run, std::move(copy));
  EXPECT_TRUE(whole.exact);
  EXPECT_EQ(whole.factor, 1);
  EXPECT_TRUE((whole.region == TokenRegion{0, 300, 0, 300}));
  EXPECT_EQ(whole.row_labels.size(), 300u);
  EXPECT_EQ(whole.col_labels[299], r.whole->run.tokens[299]);
  // A stop after the first block: false, and no more blocks computed.
  Map part;
  int calls = 0;
  EXPECT_FALSE(exact_head_map(r.blocks->run, 0, 1, part, [&](int, int) { return ++calls < 1; }));
  EXPECT_EQ(calls, 1);
  EXPECT_THROW(exact_head_map(r.blocks->run, 0, 4, part), InputError);
  EXPECT_THROW(region_of_map(r.blocks->run, Map::Zero(3, 3), {0, 3, 0, 3}, 8), InputError);
}

TEST(MapRegion, ZoomedOutIsBlockMaximaOfTheWholeMap) {
  const Runs& r = runs();
  const TokenRegion region{0, 120, 0, 120};
  const RegionMap m = exact_region(r.blocks->run, 0, 2, region, 40);  // blocks of 3 tokens, finer than the run's 10
  EXPECT_EQ(m.factor, 3);
  EXPECT_TRUE(m.exact);
  const Map whole = r.whole->run.attention[0][2].block(0, 0, 120, 120);
  expect_same(m.cells, block_max(whole, 40, 40), "blocks of 3");
  EXPECT_EQ(m.row_labels[1], "3-5");
  // Whole maps give the same cells without recomputing.
  expect_same(exact_region(r.whole->run, 0, 2, region, 40).cells, m.cells, "whole-map run");
}

TEST(MapRegion, CoarseIsTheDisplayBlocksAndFinalWhenNothingFinerFits) {
  const Runs& r = runs();
  const TokenRegion region{25, 95, 31, 64};
  const RegionMap c = coarse_region(r.blocks->run, 0, 1, region, 256);
  EXPECT_FALSE(c.exact);
  EXPECT_EQ(c.factor, 10);
  EXPECT_TRUE((c.region == TokenRegion{20, 100, 30, 70}));
  expect_same(c.cells, r.blocks->run.attention[0][1].block(2, 3, 8, 4), "display blocks");
  // The whole map at 32 cells: blocks of 10 are all there is, and final.
  const RegionMap all = exact_region(r.blocks->run, 0, 1, {0, 300, 0, 300}, 32);
  EXPECT_TRUE(all.exact);
  EXPECT_EQ(all.factor, 10);
  expect_same(all.cells, r.blocks->run.attention[0][1], "whole display map");
}

TEST(MapRegion, StrongestCellOfABlockIsExact) {
  const Runs& r = runs();
  const TokenRegion block{200, 210, 170, 180};
  const Map& whole = r.whole->run.attention[0][3];
  Eigen::Index bi = 0, bj = 0;
  const float best = whole.block(200, 170, 10, 10).maxCoeff(&bi, &bj);
  const CellPeak p = strongest_cell(r.blocks->run, 0, 3, block);
  EXPECT_EQ(p.row, 200 + int(bi));
  EXPECT_EQ(p.col, 170 + int(bj));
  EXPECT_NEAR(p.value, best, 1e-6f);
  EXPECT_EQ(strongest_cell(r.whole->run, 0, 3, block).row, p.row);
}

TEST(MapRegion, RegionsAreClippedAndBadHeadsRefused) {
  const Runs& r = runs();
  const RegionMap m = exact_region(r.blocks->run, 0, 0, {290, 400, -5, 3}, 64);
  EXPECT_TRUE((m.region == TokenRegion{290, 300, 0, 3}));
  EXPECT_EQ(m.cells.rows(), 10);
  EXPECT_EQ(m.cells.cols(), 3);
  EXPECT_THROW(exact_region(r.blocks->run, 1, 0, {0, 4, 0, 4}, 64), InputError);
  EXPECT_THROW(exact_region(r.blocks->run, 0, 4, {0, 4, 0, 4}, 64), InputError);
}

// The app opens on a default sentence unless the request has input of its own, or a checkpoint is
// to generate from nothing (its BOS), as headscope-cli does.
TEST(DefaultSentence, OneRuleForTheAppAndTheCli) {
  ModelRequest r;
  EXPECT_TRUE(wants_default_sentence(r));
  r.model_path = "stories260K.bin";
  EXPECT_TRUE(wants_default_sentence(r)) << "a checkpoint without --generate opens on the default text";
  r.generate = 20;
  EXPECT_FALSE(wants_default_sentence(r)) << "--generate with no text starts from <s>, as the CLI";
  r.sentence = "Once";
  EXPECT_FALSE(wants_default_sentence(r));
  ModelRequest ids;
  ids.input_ids = {1, 2};
  EXPECT_FALSE(wants_default_sentence(ids));
  ModelRequest file;
  file.attention_file = "maps.npz";
  EXPECT_FALSE(wants_default_sentence(file));
}

}  // namespace
}  // namespace hs
