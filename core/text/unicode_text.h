#pragma once
// Unicode operations the tokenizers' normalizers and pre-tokenizers need, from ICU (Debian's
// libicu-dev) so that they follow the Unicode Character Database rather than hand-made tables.
// Every function takes and returns valid UTF-8 (callers repair their input with utf8_repair).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/utf8.h"

namespace hs {

enum class NormalForm { nfc, nfd, nfkc, nfkd };

// The text in Unicode normalization form `form` (UAX #15).
std::string unicode_normalize(std::string_view text, NormalForm form);

// Each code point replaced by its full lowercase mapping, one code point at a time and without
// context, as Rust's char::to_lowercase (Hugging Face's Lowercase): "İ" -> "i̇", "Σ" -> "σ" even at
// the end of a word.
std::string unicode_lowercase(std::string_view text);

// Unicode properties of one code point.
bool unicode_is_white_space(char32_t c);      // White_Space (Rust's char::is_whitespace)
bool unicode_is_mark(char32_t c);             // General_Category Mark: Mn, Mc, Me
bool unicode_is_nonspacing_mark(char32_t c);  // Mn
bool unicode_is_punctuation(char32_t c);      // Pc, Pd, Ps, Pe, Pi, Pf, Po
bool unicode_is_other(char32_t c);            // Cc, Cf, Co (Hugging Face's is_other: no Cn, no Cs)

// Byte offsets where extended grapheme clusters (UAX #29) end, in order; the last is text.size().
std::vector<size_t> grapheme_ends(std::string_view text);

// Calls f(code_point, byte_offset, byte_length) for each code point of valid UTF-8 text.
template <typename F>
void for_each_code_point(std::string_view text, F&& f) {
  for (size_t pos = 0; pos < text.size();) {
    size_t len = 1;
    const int32_t cp = utf8_decode(text, pos, len);
    f(cp < 0 ? char32_t(0xFFFD) : char32_t(cp), pos, len);
    pos += len;
  }
}

}  // namespace hs
