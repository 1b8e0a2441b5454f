// Logits only where the measure needs them (issue 49): with a target, AblationLogits::measure_only
// computes the final norm and unembedding of the target's row alone in every knocked-out head's
// pass; its numbers must equal the every-row path's within 1e-5 on stories260K (llama2.c .bin, f32)
// and on its GGUF conversion with Q8_0 weights (tests/core/formats/make_gguf_test_files.py), for
// the last position (the row the mean loss never reads), a middle one, zero and mean ablation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/analysis/head_ablation.h"
#include "core/model/model_request.h"
#include "tests/core/formats/gguf_test_files.h"

namespace hs {
namespace {

std::string rows_test_models_dir() {
  if (const char* env = std::getenv("HEADSCOPE_MODELS_DIR"); env && *env) return env;
  return HEADSCOPE_MODELS_DIR_DEFAULT;
}

const char* const kRowsSentence = "Once upon a time, there was a little girl named Lily. She liked to play";

// stories260K (llama2.c .bin) on kRowsSentence; model_path "" when the models folder lacks it.
ModelRequest rows_stories_request() {
  const std::filesystem::path dir = std::filesystem::path(rows_test_models_dir()) / "stories260K";
  ModelRequest r;
  if (!std::filesystem::exists(dir / "stories260K.bin")) return r;
  r.model_path = (dir / "stories260K.bin").string();
  r.tokenizer = (dir / "tok512.bin").string();
  r.sentence = kRowsSentence;
  return r;
}

// Every head's delta_measure and the intact measure with one row of logits against every row.
void expect_one_row_equals_every_row(const ModelRequest& request, const std::string& label) {
  const HeadAblation probe = ablate_heads(request, AblationOptions{});
  const int T = int(probe.ids.size());
  ASSERT_GE(T, 8) << label;
  for (const AblationMode mode : {AblationMode::zero, AblationMode::mean}) {
    for (const AblationTarget target : {AblationTarget{T - 1, 42}, AblationTarget{T / 2, probe.ids[size_t(T / 2 + 1)]}}) {
      AblationOptions every;
      every.mode = mode;
      every.target = target;
      every.threads = 2;
      AblationOptions one = every;
      one.logits = AblationLogits::measure_only;
      const HeadAblation a = ablate_heads(request, every);
      const HeadAblation b = ablate_heads(request, one);
      const std::string what = label + ", " + ablation_mode_name(mode) + " ablation, target row " + std::to_string(target.position) +
                               " token " + std::to_string(target.token_id);
      EXPECT_FALSE(a.measure_only) << what;
      ASSERT_TRUE(b.measure_only) << what;
      ASSERT_TRUE(b.complete) << what;
      EXPECT_NEAR(b.base_measure, a.base_measure, 1e-5) << what << ": the intact measure";
      EXPECT_NEAR(b.base_loss, a.base_loss, 1e-9) << what << ": the intact pass still computes every row";
      double worst = 0;
      for (int l = 0; l < a.n_layers(); ++l)
        for (int h = 0; h < a.n_heads(); ++h) {
          const double err = std::abs(double(b.delta_measure(l, h)) - double(a.delta_measure(l, h)));
          worst = std::max(worst, err);
          EXPECT_LE(err, 1e-5) << what << ": L" << l << " h" << h << " one row " << b.delta_measure(l, h) << ", every row "
                               << a.delta_measure(l, h) << ", error " << err;
          EXPECT_TRUE(std::isnan(b.delta_loss(l, h))) << what << ": L" << l << " h" << h << " has no loss change";
          EXPECT_EQ(b.delta_logprob[size_t(l)][size_t(h)].size(), 0) << what << ": L" << l << " h" << h;
        }
      EXPECT_GT(a.delta_measure.cwiseAbs().maxCoeff(), 1e-3f) << what << ": the heads change the measure (the test can fail)";
      std::printf("%s: max |error| %.3g over %d heads\n", what.c_str(), worst, a.n_layers() * a.n_heads());
    }
  }
}

TEST(HeadAblationRows, OneRowEqualsEveryRowOnStories260K) {
  const ModelRequest r = rows_stories_request();
  if (r.model_path.empty()) GTEST_SKIP() << "stories260K not found in " << rows_test_models_dir();
  expect_one_row_equals_every_row(r, "stories260K.bin");
}

TEST(HeadAblationRows, OneRowEqualsEveryRowOnAQuantizedGguf) {
  HS_REQUIRE_GGUF_FILE(path, "stories260K_q8_0.gguf");
  ModelRequest r;
  r.model_path = path;
  r.sentence = kRowsSentence;
  expect_one_row_equals_every_row(r, "stories260K_q8_0.gguf");
}

TEST(HeadAblationRows, TheMeanLossIgnoresMeasureOnly) {
  const ModelRequest r = rows_stories_request();
  if (r.model_path.empty()) GTEST_SKIP() << "stories260K not found in " << rows_test_models_dir();
  AblationOptions o;
  o.logits = AblationLogits::measure_only;
  const HeadAblation a = ablate_heads(r, o);
  const HeadAblation b = ablate_heads(r, AblationOptions{});
  EXPECT_FALSE(a.measure_only) << "the mean loss reads every row";
  EXPECT_TRUE(a.delta_loss.isApprox(b.delta_loss, 0.0f) || a.delta_loss == b.delta_loss);
}

}  // namespace
}  // namespace hs
