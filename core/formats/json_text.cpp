#include "core/formats/json_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "core/util/utf8.h"

namespace hs {

std::string json_string(std::string_view raw) {
  const std::string text = utf8_repair(raw);
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

void write_json_float(std::ostream& out, float v) {
  if (!std::isfinite(v)) {
    out << "null";
    return;
  }
  // std::to_chars with a precision writes what printf("%.9g") writes (as if by printf, C locale),
  // without parsing a format string per number.
  char buf[32];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(v), std::chars_format::general, 9);
  out.write(buf, r.ptr - buf);
}

void write_json_vector(std::ostream& out, const Vec& v) {
  out << '[';
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    if (i) out << ',';
    write_json_float(out, v[i]);
  }
  out << ']';
}

void write_json_matrix(std::ostream& out, const Map& m) {
  out << '[';
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    if (i) out << ',';
    out << '[';
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      if (j) out << ',';
      write_json_float(out, m(i, j));
    }
    out << ']';
  }
  out << ']';
}

}  // namespace hs
