#pragma once
// Streaming JSON for large float arrays: nlohmann::json would hold every number as a double
// node; maps at T = 2048 are millions of numbers, so they are written straight to the stream.
// Floats use %.9g, enough digits to round-trip a float32.
#include <ostream>
#include <string>
#include <string_view>

#include "core/util/tensor.h"

namespace hs {

// A JSON string literal (quotes included); invalid UTF-8 is repaired to U+FFFD.
std::string json_string(std::string_view text);

// %.9g; non-finite values (never produced by the engine) are written as null.
void write_json_float(std::ostream& out, float v);

// [item(0), item(1), ...]: `item(i)` writes the i-th element.
template <typename Item>
void write_json_list(std::ostream& out, size_t n, Item&& item) {
  out << '[';
  for (size_t i = 0; i < n; ++i) {
    if (i) out << ',';
    item(i);
  }
  out << ']';
}

// [[row0...], [row1...]] for a matrix; [v0, v1, ...] for a vector.
void write_json_matrix(std::ostream& out, const Map& m);
void write_json_vector(std::ostream& out, const Vec& v);

}  // namespace hs
