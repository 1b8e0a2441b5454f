#include "core/util/utf8.h"

namespace hs {

int32_t utf8_decode(std::string_view text, size_t pos, size_t& length) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t b0 = byte(pos);
  length = 1;
  if (b0 < 0x80) return b0;
  int need = 0;
  uint32_t cp = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte (rules out overlongs, surrogates)
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1; cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2; cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3; cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return -1;
  }
  for (int k = 1; k <= need; ++k) {
    if (pos + k >= text.size()) { length = static_cast<size_t>(k); return -1; }
    const uint8_t b = byte(pos + k);
    const uint8_t min = (k == 1) ? lo : 0x80, max = (k == 1) ? hi : 0xBF;
    if (b < min || b > max) { length = static_cast<size_t>(k); return -1; }
    cp = (cp << 6) | (b & 0x3Fu);
  }
  length = static_cast<size_t>(need + 1);
  return static_cast<int32_t>(cp);
}

void utf8_append(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool utf8_is_valid(std::string_view text) {
  for (size_t pos = 0, len = 0; pos < text.size(); pos += len) {
    if (utf8_decode(text, pos, len) < 0) return false;
  }
  return true;
}

std::string utf8_repair(std::string_view text, size_t* replaced) {
  std::string out;
  out.reserve(text.size());
  size_t count = 0;
  for (size_t pos = 0, len = 0; pos < text.size(); pos += len) {
    if (utf8_decode(text, pos, len) < 0) {
      utf8_append(out, 0xFFFD);
      ++count;
    } else {
      out.append(text.substr(pos, len));
    }
  }
  if (replaced) *replaced = count;
  return out;
}

size_t utf8_length(std::string_view text) {
  size_t n = 0;
  for (size_t pos = 0, len = 0; pos < text.size(); pos += len) {
    utf8_decode(text, pos, len);
    ++n;
  }
  return n;
}

std::string utf8_prefix(std::string_view text, size_t max_code_points) {
  size_t pos = 0, len = 0;
  for (size_t n = 0; pos < text.size() && n < max_code_points; pos += len, ++n) utf8_decode(text, pos, len);
  return std::string(text.substr(0, pos));
}

}  // namespace hs
