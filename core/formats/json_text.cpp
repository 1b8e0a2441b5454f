#include "core/formats/json_text.h"

#include <algorithm>
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

namespace {

// Writes v as %.9g (or null) at `p`, at most 24 characters; returns the end. std::to_chars with a
// precision writes what printf("%.9g") writes (as if by printf, C locale) without parsing a format.
char* put_json_float(char* p, float v) {
  if (!std::isfinite(v)) return std::copy_n("null", 4, p);
  return std::to_chars(p, p + 24, static_cast<double>(v), std::chars_format::general, 9).ptr;
}

// [v0,v1,...] of n floats, a row at a time into one buffer, then one write to the stream.
void write_json_floats(std::ostream& out, const float* v, Eigen::Index n, Eigen::Index stride, std::string& buf) {
  buf.resize(size_t(n) * 25 + 2);
  char* p = buf.data();
  *p++ = '[';
  for (Eigen::Index j = 0; j < n; ++j) {
    if (j) *p++ = ',';
    p = put_json_float(p, v[j * stride]);
  }
  *p++ = ']';
  out.write(buf.data(), p - buf.data());
}

}  // namespace

void write_json_float(std::ostream& out, float v) {
  char buf[24];
  out.write(buf, put_json_float(buf, v) - buf);
}

void write_json_vector(std::ostream& out, const Vec& v) {
  std::string buf;
  write_json_floats(out, v.data(), v.size(), v.innerStride(), buf);
}

void write_json_matrix(std::ostream& out, const Map& m) {
  std::string buf;
  out << '[';
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    if (i) out << ',';
    write_json_floats(out, m.data() + i * m.outerStride(), m.cols(), 1, buf);
  }
  out << ']';
}

}  // namespace hs
