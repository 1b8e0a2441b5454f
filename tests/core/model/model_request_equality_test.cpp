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

namespace hs {
namespace {

// The number of fields of aggregate S: the most initialisers S{...} accepts (each `AnyField`
// converts to whatever its field is).
struct AnyField {
  template <class T>
  operator T() const;
};
template <class S, class... A>
constexpr auto accepts(int) -> decltype(S{std::declval<A>()...}, true) {
  return true;
}
template <class S, class... A>
constexpr bool accepts(...) {
  return false;
}
template <class S, class... A>
constexpr std::size_t field_count() {
  if constexpr (sizeof...(A) > 64 || !accepts<S, A..., AnyField>(0)) {
    return sizeof...(A);
  } else {
    return field_count<S, A..., AnyField>();
  }
}
template <class S>
constexpr std::size_t tied_count() {
  return std::tuple_size_v<decltype(std::declval<const S&>().tie())>;
}

// A field was added to the struct and not to its tie() (or one was removed): add it there
// (core/model/model_request.h, core/model/attention_config.h) and equality will compare it.
static_assert(field_count<AttentionConfig>() == tied_count<AttentionConfig>(),
              "AttentionConfig::tie() must list every field");
static_assert(field_count<ModelRequest>() == tied_count<ModelRequest>(), "ModelRequest::tie() must list every field");
static_assert(tied_count<ModelRequest>() == std::tuple_size_v<decltype(ModelRequest{}.input_tie())> + 1,
              "input_tie() is every field but fit_context");

// Another value for each kind of field (a struct: its first field).
void change(std::string& s) { s += "x"; }
void change(std::vector<int>& v) { v.push_back(7); }
void change(int& i) { i += 1; }
void change(uint64_t& u) { u += 1; }
void change(float& f) { f += 0.5f; }
void change(bool& b) { b = !b; }
template <std::size_t I, class S>
void change_field(S& s);
template <class S>
auto change(S& s) -> decltype(s.tie(), void()) {
  change_field<0>(s);
}

template <std::size_t I, class S>
void change_field(S& s) {
  const auto& field = std::get<I>(s.tie());
  using T = std::remove_const_t<std::remove_reference_t<decltype(field)>>;
  change(const_cast<T&>(field));  // `s` is not const: tie() only hands its fields out as const
}

template <class S, std::size_t... I>
void expect_each_field_differs(std::index_sequence<I...>) {
  const auto differs = [](auto index) {
    const S a{};
    S b{};
    change_field<decltype(index)::value>(b);
    EXPECT_FALSE(a == b) << "changing field " << decltype(index)::value << " of tie() makes no difference";
    EXPECT_TRUE(a != b);
  };
  (differs(std::integral_constant<std::size_t, I>{}), ...);
}

TEST(ModelRequestEquality, EachFieldOfAttentionConfigMakesADifference) {
  EXPECT_EQ(AttentionConfig{}, AttentionConfig{});
  expect_each_field_differs<AttentionConfig>(std::make_index_sequence<tied_count<AttentionConfig>()>{});
}

TEST(ModelRequestEquality, EachFieldOfModelRequestMakesADifference) {
  EXPECT_EQ(ModelRequest{}, ModelRequest{});
  expect_each_field_differs<ModelRequest>(std::make_index_sequence<tied_count<ModelRequest>()>{});
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
