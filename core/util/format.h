#pragma once
// Text for messages and labels: printf into a std::string, counts with commas, excerpts of input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace hs {

// Whether `s` ends with `suffix` (std::string::ends_with is C++20).
bool ends_with(std::string_view s, std::string_view suffix);

// printf into a std::string (any length).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "1,234,567"
std::string format_count(int64_t n);

// A change with its sign and `decimals` digits ("+0.3381", "-4.411"), and "0" for one that rounds
// to zero at those digits (never "-0.0000" or "+0.0000": an untouched head's change is 0).
std::string format_change(double v, int decimals);

// How much of a file's text (a JSON value, a key, a string) a message may echo.
constexpr size_t kExcerptCodePoints = 60;

// `text` for a message, on one line and bounded: invalid UTF-8 repaired, control characters shown
// as spaces, and anything past `max_code_points` code points cut off with "..." (a 1 MB value in
// a config.json made a 1 MB error line).
std::string excerpt(std::string_view text, size_t max_code_points = kExcerptCodePoints);

}  // namespace hs
