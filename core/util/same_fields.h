#pragma once
// Field-by-field equality for settings structs. Each such struct lists every field once, in a
// `tie()` member returning std::tie(...) of them, and compares with same_fields:
//
//   auto tie() const { return std::tie(a, b, c); }
//   bool operator==(const S& o) const { return same_fields(tie(), o.tie()); }
//
// A float setting equals itself even when it is NaN: a NaN in a setting is one (bad) setting,
// not a change every time it is compared (a recompute every frame).
#include <cmath>
#include <cstddef>
#include <tuple>
#include <utility>

namespace hs {

inline bool same_value(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }
inline bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
template <class T>
bool same_value(const T& a, const T& b) {
  return a == b;
}

template <class... T, std::size_t... I>
bool same_fields(const std::tuple<const T&...>& a, const std::tuple<const T&...>& b, std::index_sequence<I...>) {
  return (same_value(std::get<I>(a), std::get<I>(b)) && ...);
}

// Every field of `a` equals the same field of `b` (same_value).
template <class... T>
bool same_fields(const std::tuple<const T&...>& a, const std::tuple<const T&...>& b) {
  return same_fields(a, b, std::index_sequence_for<T...>{});
}

}  // namespace hs
