#pragma once
// For tests of a struct's tie() equality (core/util/same_fields.h): the struct's field count, the
// count its tie() lists, and a check that changing each tied field on its own makes the struct
// compare different. A field added to the struct but not to tie() fails the static_assert a test
// writes with these counts.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace hs::test {

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

// Another value for each kind of field (a struct: its first tied field; an enum: the next value).
inline void change(std::string& s) { s += "x"; }
inline void change(std::vector<int>& v) { v.push_back(7); }
inline void change(int& i) { i += 1; }
inline void change(uint64_t& u) { u += 1; }
inline void change(float& f) { f += 0.5f; }
inline void change(bool& b) { b = !b; }
template <class E>
auto change(E& e) -> std::enable_if_t<std::is_enum_v<E>> {
  e = E(int(e) + 1);
}
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

// S{} differs from S{} with tied field I changed, for every I; `same` is the equality under test.
template <class S, class Same, std::size_t... I>
void expect_each_field_differs(Same same, std::index_sequence<I...>) {
  const auto differs = [&same](auto index) {
    const S a{};
    S b{};
    change_field<decltype(index)::value>(b);
    EXPECT_FALSE(same(a, b)) << "changing field " << decltype(index)::value << " of tie() makes no difference";
  };
  (differs(std::integral_constant<std::size_t, I>{}), ...);
}
template <class S, class Same>
void expect_each_field_differs(Same same) {
  expect_each_field_differs<S>(same, std::make_index_sequence<tied_count<S>()>{});
}

}  // namespace hs::test
