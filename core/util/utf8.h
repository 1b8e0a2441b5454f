#pragma once
// UTF-8 helpers. Sentences come from keyboards, files and fuzzers: anything that is not valid
// UTF-8 (stray continuation bytes, overlongs, surrogates, truncated sequences) is replaced by
// U+FFFD, one replacement per maximal invalid subpart, as the Unicode standard recommends.
#include <cstdint>
#include <string>
#include <string_view>

namespace hs {

// Decodes one code point starting at text[pos]. On success returns the code point and sets
// `length`; on an invalid sequence returns -1 and sets `length` to the bytes to skip (>= 1).
int32_t utf8_decode(std::string_view text, size_t pos, size_t& length);

void utf8_append(std::string& out, uint32_t code_point);

bool utf8_is_valid(std::string_view text);

// Valid UTF-8 with every invalid subpart replaced by U+FFFD; `replaced` counts replacements.
std::string utf8_repair(std::string_view text, size_t* replaced = nullptr);

// Number of code points of valid UTF-8 text (used to abbreviate axis labels).
size_t utf8_length(std::string_view text);

// The first `max_code_points` code points of valid UTF-8 text.
std::string utf8_prefix(std::string_view text, size_t max_code_points);

}  // namespace hs
