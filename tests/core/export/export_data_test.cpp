// Data exports read back with the engine's own .npy reader and equal the engine's numbers
// exactly (float32 written as float32); CSV text is checked line by line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include "core/analysis/head_stats.h"
#include "core/export/export_data.h"
#include "core/formats/npy.h"
#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/model/synthetic_model.h"
#include "core/export/export.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

namespace fs = std::filesystem;

// The analysis exports read (core/analysis/run_analysis.h), as headscope-cli makes it.
std::shared_ptr<const RunAnalysis> make_analysis(const char* sentence) {
  ModelRequest r;
  r.sentence = sentence;
  r.attention.d_model = 8;
  r.attention.n_heads = 4;
  return analyse(r);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class ExportData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hs_export_data_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

void expect_same(const float* got, const Map& want, const std::string& what) {
  for (Eigen::Index i = 0; i < want.rows(); ++i)
    for (Eigen::Index j = 0; j < want.cols(); ++j)
      ASSERT_EQ(got[i * want.cols() + j], want(i, j)) << what << " cell (" << i << ", " << j << ")";
}

TEST_F(ExportData, NpyOneHeadIsTxT) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("the keys that Priya left on the table were not hers");
  const AttentionRun& run = analysis->run;
  ExportSpec spec;
  spec.path = path("h.npy");
  spec.head = 3;
  export_view(*analysis, nullptr, spec);
  const NpyArray a = read_npy(spec.path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{11, 11}));
  expect_same(a.data.data(), run.attention[0][3], "head 3");
}

TEST_F(ExportData, NpyAllHeadsIsLayersHeadsTT) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("the keys that Priya left on the table were not hers");
  const AttentionRun& run = analysis->run;
  ExportSpec spec;
  spec.path = path("all.npy");
  export_view(*analysis, nullptr, spec);
  const NpyArray a = read_npy(spec.path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{1, 4, 11, 11}));
  for (int h = 0; h < 4; ++h) expect_same(a.data.data() + h * 121, run.attention[0][size_t(h)], "head " + std::to_string(h));
}

TEST_F(ExportData, NpyDistanceIsHxHTotalVariation) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("the keys that Priya left on the table were not hers");
  ExportSpec spec;
  spec.path = path("dist.npy");
  spec.view = View::distance;
  export_view(*analysis, nullptr, spec);
  const NpyArray a = read_npy(spec.path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{4, 4}));
  expect_same(a.data.data(), head_distance(analysis->run.attention[0]), "distance");
}

TEST_F(ExportData, NpyDifferenceIsTheHeadDistanceHxH) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("the keys that Priya left on the table were not hers");
  const AttentionRun& run = analysis->run;
  ExportSpec spec;
  spec.path = path("d.npy");
  spec.view = View::difference;
  export_view(*analysis, nullptr, spec);
  const NpyArray a = read_npy(spec.path);
  ASSERT_EQ(a.shape, (std::vector<int64_t>{4, 4}));
  expect_same(a.data.data(), head_distance(run.attention[0]), "difference view: the head distance");
}

TEST_F(ExportData, CsvHeaderAndRowsQuoteAwkwardTokens) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("he said \"no\", then left");
  const AttentionRun& run = analysis->run;
  ASSERT_EQ(run.tokens[2], "\"");
  ASSERT_EQ(run.tokens[5], ",");
  ExportSpec spec;
  spec.path = path("h.csv");
  spec.head = 0;
  export_view(*analysis, nullptr, spec);
  const std::vector<std::string> lines = lines_of(read_file(spec.path));
  ASSERT_EQ(lines.size(), run.tokens.size() + 1);
  EXPECT_EQ(lines[0], "query\\key,he,said,\"\"\"\",no,\"\"\"\",\",\",then,left");
  EXPECT_EQ(lines[3].rfind("\"\"\"\",", 0), 0u) << lines[3];
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", double(run.attention[0][0](1, 7)));
  EXPECT_EQ(lines[2], lines[2].substr(0, lines[2].rfind(',')) + "," + buf);
}

TEST_F(ExportData, CsvAllHeadsIsOneBlockPerHead) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("a b c");
  const AttentionRun& run = analysis->run;
  const std::vector<std::string> lines = lines_of(attention_csv(run, 0, -1));
  ASSERT_EQ(lines.size(), 4u * 4 + 3);  // 4 blocks of header + 3 rows, 3 blank separators
  EXPECT_EQ(lines[0], "query\\key,a,b,c");
  EXPECT_EQ(lines[4], "");
  EXPECT_EQ(lines[5], "query\\key,a,b,c");
}

TEST_F(ExportData, SweepDataHasOneRowPerHeadCount) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("the keys that Priya left on the table were not hers");
  const AttentionRun& run = analysis->run;
  const std::vector<std::string> lines = lines_of(sweep_csv(analyse_sweep(analysis->request, run.tokens)->points));
  ASSERT_EQ(lines.size(), 5u);  // header + heads 1, 2, 4, 8
  EXPECT_EQ(lines[0], "n_heads,d_head,param_count,mean_head_difference,mean_entropy,mean_score_rank,mean_effective_rank,"
                      "mean_head_distance");
  EXPECT_EQ(lines[1].rfind("1,8,288,,", 0), 0u) << "one head: no pair, no value (not 0): " << lines[1];
  EXPECT_EQ(lines[1].back(), ',') << "no distance at one head: " << lines[1];
  EXPECT_EQ(lines[4].rfind("8,1,288,", 0), 0u) << lines[4];
}

TEST_F(ExportData, JsonIsTheMapsObject) {
  const std::shared_ptr<const RunAnalysis> analysis = make_analysis("a b c");
  ExportSpec spec;
  spec.path = path("m.json");
  export_view(*analysis, nullptr, spec);
  const std::string json = read_file(spec.path);
  EXPECT_EQ(json.rfind("{\"tokens\":[\"a\",\"b\",\"c\"]", 0), 0u) << json.substr(0, 80);
  EXPECT_NE(json.find("\"head_difference\":"), std::string::npos);
}

}  // namespace
}  // namespace hs
