#pragma once
// Text from numbers, for messages and labels: printf into a std::string, counts with commas.
#include <cstdint>
#include <string>

namespace hs {

// printf into a std::string (any length).
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// "1,234,567"
std::string format_count(int64_t n);

}  // namespace hs
