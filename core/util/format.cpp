#include "core/util/format.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

#include "core/util/utf8.h"

namespace hs {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string format(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  std::string out;
  if (n > 0) {
    std::vector<char> buf(size_t(n) + 1);
    std::vsnprintf(buf.data(), buf.size(), fmt, again);
    out.assign(buf.data(), size_t(n));
  }
  va_end(again);
  return out;
}

std::string format_count(int64_t n) {
  const uint64_t magnitude = n < 0 ? 0 - uint64_t(n) : uint64_t(n);
  std::string digits = std::to_string(magnitude), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string format_change(double v, int decimals) {
  const std::string s = format("%+.*f", decimals, v);
  if (s.find_first_not_of("+-0.", 0) == std::string::npos) return "0";
  return s;
}

std::string excerpt(std::string_view text, size_t max_code_points) {
  // A code point takes at most 4 bytes (an invalid byte counts as one), so this head holds more
  // than max_code_points code points whenever it is shorter than the text.
  const std::string_view head = text.substr(0, 4 * (max_code_points + 1));
  std::string out = utf8_repair(head);
  const bool cut = head.size() < text.size() || utf8_length(out) > max_code_points;
  if (cut) out = utf8_prefix(out, max_code_points);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = ' ';
  return cut ? out + "..." : out;
}

}  // namespace hs
