#include "core/text/unicode_text.h"

#include <unicode/ubrk.h>
#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utext.h>

#include <cassert>
#include <climits>
#include <memory>

#include "core/util/errors.h"

namespace hs {
namespace {

bool is_ascii(std::string_view text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  return true;
}

std::u16string to_utf16(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strFromUTF8(nullptr, 0, &length, text.data(), int32_t(text.size()), &status);
  std::u16string out(size_t(length), u'\0');
  status = U_ZERO_ERROR;
  u_strFromUTF8(reinterpret_cast<UChar*>(out.data()), length, nullptr, text.data(), int32_t(text.size()), &status);
  assert(U_SUCCESS(status) && "the text is valid UTF-8");
  return out;
}

std::string to_utf8(const std::u16string& text) {
  UErrorCode status = U_ZERO_ERROR;
  int32_t length = 0;
  u_strToUTF8(nullptr, 0, &length, reinterpret_cast<const UChar*>(text.data()), int32_t(text.size()), &status);
  std::string out(size_t(length), '\0');
  status = U_ZERO_ERROR;
  u_strToUTF8(out.data(), length, nullptr, reinterpret_cast<const UChar*>(text.data()), int32_t(text.size()), &status);
  assert(U_SUCCESS(status) && "ICU returns well-formed UTF-16");
  return out;
}

const UNormalizer2* normalizer(NormalForm form) {
  UErrorCode status = U_ZERO_ERROR;
  const UNormalizer2* n = nullptr;
  switch (form) {
    case NormalForm::nfc: n = unorm2_getNFCInstance(&status); break;
    case NormalForm::nfd: n = unorm2_getNFDInstance(&status); break;
    case NormalForm::nfkc: n = unorm2_getNFKCInstance(&status); break;
    case NormalForm::nfkd: n = unorm2_getNFKDInstance(&status); break;
  }
  if (U_FAILURE(status) || !n) throw Error(std::string("ICU has no normalization data: ") + u_errorName(status));
  return n;
}

// The text is too long for ICU's int32_t lengths.
void check_length(std::string_view text) {
  if (text.size() > size_t(INT32_MAX / 4)) throw InputError("the text has " + std::to_string(text.size()) + " bytes, more than Unicode normalization takes (512 MiB)");
}

}  // namespace

std::string unicode_normalize(std::string_view text, NormalForm form) {
  if (is_ascii(text)) return std::string(text);  // ASCII is the same in every form
  check_length(text);
  const UNormalizer2* n = normalizer(form);
  const std::u16string source = to_utf16(text);
  UErrorCode status = U_ZERO_ERROR;
  const auto src = reinterpret_cast<const UChar*>(source.data());
  const int32_t length = unorm2_normalize(n, src, int32_t(source.size()), nullptr, 0, &status);
  if (status != U_BUFFER_OVERFLOW_ERROR && U_FAILURE(status)) throw Error(std::string("ICU normalization failed: ") + u_errorName(status));
  std::u16string out(size_t(length), u'\0');
  status = U_ZERO_ERROR;
  unorm2_normalize(n, src, int32_t(source.size()), reinterpret_cast<UChar*>(out.data()), length, &status);
  if (U_FAILURE(status)) throw Error(std::string("ICU normalization failed: ") + u_errorName(status));
  return to_utf8(out);
}

std::string unicode_lowercase(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](char32_t c, size_t pos, size_t len) {
    if (c < 0x80) {
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
      return;
    }
    // One code point alone: no preceding letter, so no context-dependent mapping (final sigma).
    const std::u16string one = to_utf16(text.substr(pos, len));
    UChar lower[8];
    UErrorCode status = U_ZERO_ERROR;
    const int32_t n = u_strToLower(lower, 8, reinterpret_cast<const UChar*>(one.data()), int32_t(one.size()), "", &status);
    if (U_FAILURE(status)) {
      out.append(text.substr(pos, len));
      return;
    }
    out += to_utf8(std::u16string(reinterpret_cast<const char16_t*>(lower), size_t(n)));
  });
  return out;
}

bool unicode_is_white_space(char32_t c) { return u_isUWhiteSpace(UChar32(c)); }

bool unicode_is_mark(char32_t c) {
  const int8_t t = u_charType(UChar32(c));
  return t == U_NON_SPACING_MARK || t == U_COMBINING_SPACING_MARK || t == U_ENCLOSING_MARK;
}

bool unicode_is_nonspacing_mark(char32_t c) { return u_charType(UChar32(c)) == U_NON_SPACING_MARK; }

bool unicode_is_punctuation(char32_t c) {
  switch (u_charType(UChar32(c))) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return true;
    default:
      return false;
  }
}

bool unicode_is_other(char32_t c) {
  const int8_t t = u_charType(UChar32(c));
  return t == U_CONTROL_CHAR || t == U_FORMAT_CHAR || t == U_PRIVATE_USE_CHAR;
}

std::vector<size_t> grapheme_ends(std::string_view text) {
  std::vector<size_t> ends;
  if (text.empty()) return ends;
  check_length(text);
  struct Closer {
    void operator()(UBreakIterator* b) const { ubrk_close(b); }
  };
  // One break iterator per thread: opening one loads the rules, which costs far more than a word.
  thread_local std::unique_ptr<UBreakIterator, Closer> iterator;
  UErrorCode status = U_ZERO_ERROR;
  if (!iterator) {
    iterator.reset(ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &status));
    if (U_FAILURE(status) || !iterator) throw Error(std::string("ICU has no grapheme break rules: ") + u_errorName(status));
  }
  UText* ut = utext_openUTF8(nullptr, text.data(), int64_t(text.size()), &status);
  ubrk_setUText(iterator.get(), ut, &status);
  if (U_FAILURE(status)) {
    utext_close(ut);
    throw Error(std::string("ICU grapheme breaking failed: ") + u_errorName(status));
  }
  ubrk_first(iterator.get());
  for (int32_t end = ubrk_next(iterator.get()); end != UBRK_DONE; end = ubrk_next(iterator.get())) ends.push_back(size_t(end));
  utext_close(ut);
  if (ends.empty() || ends.back() != text.size()) ends.push_back(text.size());
  return ends;
}

}  // namespace hs
