// ModelRequest and AttentionConfig compare every field (their tie()): a field added to the struct
// but not to tie() fails to compile here, and each field changed on its own makes a difference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/analysis/sweep_analysis.h"
#include "core/model/model_request.h"
#include "core/render/colour_scale.h"
#include "core/session/session_file.h"
#include "tests/core/util/tie_fields.h"

namespace hs {
namespace {

using test::field_count;
using test::tied_count;

// A field was added to the struct and not to its tie() (or one was removed): add it there
// (core/model/model_request.h, core/model/attention_config.h) and equality will compare it.
static_assert(field_count<AttentionConfig>() == tied_count<AttentionConfig>(),
              "AttentionConfig::tie() must list every field");
static_assert(field_count<ModelRequest>() == tied_count<ModelRequest>(), "ModelRequest::tie() must list every field");
static_assert(tied_count<ModelRequest>() == std::tuple_size_v<decltype(ModelRequest{}.input_tie())> + 1,
              "input_tie() is every field but fit_context");

static_assert(field_count<ColourScale>() == tied_count<ColourScale>(), "ColourScale::tie() must list every field");
static_assert(field_count<ViewState>() == tied_count<ViewState>(), "ViewState::tie() must list every field");

// Same unless `==` and `!=` both say "different".
template <class S>
bool same(const S& a, const S& b) {
  return a == b || !(a != b);
}

TEST(ModelRequestEquality, EachFieldOfAttentionConfigMakesADifference) {
  EXPECT_EQ(AttentionConfig{}, AttentionConfig{});
  test::expect_each_field_differs<AttentionConfig>([](const auto& a, const auto& b) { return same(a, b); });
}

TEST(ModelRequestEquality, EachFieldOfModelRequestMakesADifference) {
  EXPECT_EQ(ModelRequest{}, ModelRequest{});
  test::expect_each_field_differs<ModelRequest>([](const auto& a, const auto& b) { return same(a, b); });
}

TEST(ModelRequestEquality, EachFieldOfColourScaleAndViewStateMakesADifference) {
  EXPECT_EQ(ColourScale{}, ColourScale{});
  test::expect_each_field_differs<ColourScale>([](const auto& a, const auto& b) { return same(a, b); });
  EXPECT_EQ(ViewState{}, ViewState{});
  test::expect_each_field_differs<ViewState>([](const auto& a, const auto& b) { return same(a, b); });
}

TEST(ModelRequestEquality, EveryAttentionFieldMakesADifferenceInsideTheRequest) {
  // The nested struct is compared by its own tie(): its last field too.
  ModelRequest a, b;
  b.attention.scrambled_reshape = true;
  EXPECT_NE(a, b);
  b = a;
  b.attention.softcap = 30.0f;
  EXPECT_NE(a, b);
  b = a;
  b.attention.scale = 0.125f;
  EXPECT_NE(a, b);
}

TEST(ModelRequestEquality, ANaNSettingEqualsItself) {
  ModelRequest a;
  a.attention.temperature = std::nanf("");
  const ModelRequest b = a;
  EXPECT_EQ(a, b) << "a NaN temperature is one setting, not a new request every time it is compared";
  ModelRequest c = a;
  c.attention.temperature = 1.0f;
  EXPECT_NE(a, c);
}

TEST(ModelRequestEquality, InputTieLeavesOutOnlyFitContext) {
  ModelRequest a, b;
  b.fit_context = true;
  EXPECT_NE(a, b);
  EXPECT_TRUE(same_fields(a.input_tie(), b.input_tie()));
  b.generate = 3;
  EXPECT_FALSE(same_fields(a.input_tie(), b.input_tie()));
}

TEST(ModelRequestEquality, TheSweepIgnoresWhatItSetsItselfAndNothingElse) {
  ModelRequest a;
  a.sentence = "the cat sat";
  ModelRequest b = a;
  b.attention.n_heads = 8, b.attention.n_kv_heads = 2, b.attention.d_head = 4, b.attention.scrambled_reshape = true;
  b.seed = 9, b.fit_context = true;
  EXPECT_TRUE(same_sweep_inputs(a, b)) << "heads, groups, head width, reshape and seed are the sweep's own";
  for (auto set : {+[](ModelRequest& r) { r.sentence += "x"; }, +[](ModelRequest& r) { r.attention.d_model = 16; },
                   +[](ModelRequest& r) { r.attention.causal = true; }, +[](ModelRequest& r) { r.attention.window = 2; },
                   +[](ModelRequest& r) { r.attention.temperature = 2.0f; }, +[](ModelRequest& r) { r.attention.bias = false; },
                   +[](ModelRequest& r) { r.attention.softcap = 30.0f; }, +[](ModelRequest& r) { r.weights = "w.safetensors"; }}) {
    ModelRequest c = a;
    set(c);
    EXPECT_FALSE(same_sweep_inputs(a, c));
  }
}

}  // namespace
}  // namespace hs
