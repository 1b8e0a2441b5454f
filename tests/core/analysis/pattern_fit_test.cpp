// The pattern fit: the closest map a head of width d makes to a target (core/analysis/pattern_fit.h).
// Its error falls with width and is < 0.01 from d = T - 1 on smoothed permutation targets; a
// width-1 head cannot draw "previous token" and a width-4 head can; bad input is refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/analysis/pattern_fit.h"
#include "core/analysis/target_pattern.h"
#include "core/formats/npy.h"
#include "core/util/errors.h"

namespace hs {
namespace {

std::shared_ptr<const RunAnalysis> lesson_run() {
  ModelRequest r;
  r.sentence = "the keys that Priya left on the table were not hers";
  r.attention.d_model = 8;
  r.attention.n_heads = 8;
  return analyse(r);
}

TEST(PatternFit, DefaultWidthsDoubleUpToTMinusOne) {
  EXPECT_EQ(default_fit_widths(11), (std::vector<int>{1, 2, 4, 8, 10}));
  EXPECT_EQ(default_fit_widths(9), (std::vector<int>{1, 2, 4, 8}));
  EXPECT_EQ(default_fit_widths(2), (std::vector<int>{1}));
}

TEST(PatternFit, ErrorFallsWithWidthAndVanishesFromTMinusOneOnPermutations) {
  const auto a = lesson_run();
  const int T = a->run.n_tokens();
  for (int seed : {1, 2, 3}) {
    const Map target = target_pattern("permutation:" + std::to_string(seed), *a);
    const PatternFit fit = fit_pattern(target);
    ASSERT_EQ(fit.fits.size(), default_fit_widths(T).size());
    for (size_t i = 1; i < fit.fits.size(); ++i) {
      EXPECT_LE(fit.fits[i].cross_entropy, fit.fits[i - 1].cross_entropy + 1e-6f) << "seed " << seed;
      EXPECT_LE(fit.fits[i].error, fit.fits[i - 1].error + 0.02f) << "seed " << seed << " width " << fit.fits[i].width;
    }
    EXPECT_GT(fit.fits.front().error, 0.5f) << "width 1 cannot draw a permutation";
    EXPECT_EQ(fit.fits.back().width, T - 1);
    EXPECT_LT(fit.fits.back().error, 0.01f) << "seed " << seed;
    EXPECT_EQ(fit.fits.back().reachable_keys.size(), size_t(T)) << "every key reachable at T - 1";
    EXPECT_EQ(fit.fits.front().reachable_keys.size(), 2u);
    for (const WidthFit& w : fit.fits)
      for (int i = 0; i < T; ++i) EXPECT_NEAR(w.fitted.row(i).sum(), 1.0f, 1e-5f);
  }
}

TEST(PatternFit, PreviousTokenNeedsMoreThanWidthOne) {
  const auto a = lesson_run();
  PatternFitOptions o;
  o.widths = {1, 4};
  const PatternFit fit = fit_pattern(target_pattern("previous", *a), o);
  EXPECT_GT(fit.fits[0].error, 0.5f);
  EXPECT_LT(fit.fits[1].error, 0.1f);
}

TEST(PatternFit, SeededAndReproducible) {
  const auto a = lesson_run();
  PatternFitOptions o;
  o.widths = {2};
  o.steps = 200;
  o.seed = 9;
  const Map t = target_pattern("previous", *a);
  EXPECT_EQ(fit_pattern(t, o).fits[0].fitted, fit_pattern(t, o).fits[0].fitted);
}

TEST(PatternFit, CancelKeepsTheFinishedWidths) {
  const auto a = lesson_run();
  PatternFitOptions o;
  o.widths = {1, 2, 4};
  o.steps = 100;
  const PatternFit fit = fit_pattern(target_pattern("first", *a), o, [](int done, int) { return done < 150; });
  EXPECT_TRUE(fit.cancelled);
  EXPECT_EQ(fit.fits.size(), 1u);
}

TEST(PatternFit, TargetsAreRowStochasticAndNamed) {
  const auto a = lesson_run();
  const int T = a->run.n_tokens();
  for (const std::string spec : {"previous", "first", "token:3", "permutation", "permutation:4", "head:0:2"}) {
    const Map m = target_pattern(spec, *a);
    ASSERT_EQ(m.rows(), T) << spec;
    for (int i = 0; i < T; ++i) EXPECT_NEAR(m.row(i).sum(), 1.0f, 1e-5f) << spec;
  }
  EXPECT_EQ(target_pattern("previous", *a)(5, 4), 1.0f);
  EXPECT_EQ(target_pattern("token:3", *a)(0, 3), 1.0f);
  EXPECT_EQ(pattern_title("token:3", *a), "token 3 'Priya'");
}

// What the refusal says, or "" when none.
std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  } catch (const FormatError& e) {
    return e.what();
  }
  return "";
}

TEST(PatternFit, BadInputIsRefusedWithTheReason) {
  const auto a = lesson_run();
  const int T = a->run.n_tokens();
  Map bad = Map::Identity(T, T);
  bad(2, 3) = 0.5f;
  EXPECT_NE(refusal([&] { fit_pattern(bad); }).find("row 2 sums to 1.5"), std::string::npos);
  EXPECT_NE(refusal([&] { fit_pattern(Map::Constant(3, 4, 0.25f)); }).find("square"), std::string::npos);
  EXPECT_NE(refusal([&] { fit_pattern(Map::Identity(kFitMaxTokens + 1, kFitMaxTokens + 1)); }).find("at most 64 tokens"),
            std::string::npos);
  PatternFitOptions o;
  o.widths = {T + 1};
  EXPECT_NE(refusal([&] { fit_pattern(Map::Identity(T, T), o); }).find("head width 12 is out of range"), std::string::npos);
  bad = Map::Identity(T, T);
  bad(1, 1) = -1, bad(1, 0) = 2;
  EXPECT_NE(refusal([&] { fit_pattern(bad); }).find("expected a number >= 0"), std::string::npos);
  EXPECT_NE(refusal([&] { target_pattern("prevous", *a); }).find("did you mean previous"), std::string::npos);
  EXPECT_NE(refusal([&] { target_pattern("token:99", *a); }).find("out of range"), std::string::npos);
  EXPECT_NE(refusal([&] { target_pattern("head:3:0", *a); }).find("layers 0 to 0, heads 0 to 7"), std::string::npos);
  // A file of the wrong size, and one whose rows do not sum to 1.
  const std::string dir = ::testing::TempDir();
  const Map three = Map::Identity(3, 3);
  write_npy(dir + "/three.npy", three.data(), {3, 3});
  EXPECT_NE(refusal([&] { target_pattern(dir + "/three.npy", *a); }).find("must be 11 x 11"), std::string::npos);
  const Map halves = Map::Constant(T, T, 0.5f);
  write_npy(dir + "/halves.npy", halves.data(), {T, T});
  EXPECT_NE(refusal([&] { target_pattern(dir + "/halves.npy", *a); }).find("sums to 5.5"), std::string::npos);
}

TEST(PatternFit, ReadsTheCsvThatExportWrites) {
  const auto a = lesson_run();
  const std::string path = ::testing::TempDir() + "/head.csv";
  {
    std::ofstream out(path);
    out << "query\\key";
    for (const std::string& t : a->run.tokens) out << "," << t;
    out << "\n";
    for (int i = 0; i < a->run.n_tokens(); ++i) {
      out << a->run.tokens[size_t(i)];
      for (int j = 0; j < a->run.n_tokens(); ++j) out << "," << a->run.attention[0][2](i, j);
      out << "\n";
    }
  }
  EXPECT_LT((target_pattern(path, *a) - a->run.attention[0][2]).cwiseAbs().maxCoeff(), 1e-6f);
}

}  // namespace
}  // namespace hs
