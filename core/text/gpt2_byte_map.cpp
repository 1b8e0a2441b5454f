#include "core/text/gpt2_byte_map.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <array>
#include <unordered_map>

#include "core/util/utf8.h"
#include "core/util/errors.h"

namespace hs {

const char* const kGpt2SplitPattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

namespace {

struct ByteTables {
  std::array<std::string, 256> to_unicode;
  std::unordered_map<uint32_t, unsigned char> to_byte;
  ByteTables() {
    uint32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
      const uint32_t cp = printable ? uint32_t(b) : next++;
      utf8_append(to_unicode[size_t(b)], cp);
      to_byte[cp] = static_cast<unsigned char>(b);
    }
  }
};

const ByteTables& tables() {
  static const ByteTables t;
  return t;
}

}  // namespace

const std::string& gpt2_byte_to_unicode(unsigned char b) { return tables().to_unicode[b]; }

std::string gpt2_bytes_to_unicode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char ch : bytes) out += tables().to_unicode[static_cast<unsigned char>(ch)];
  return out;
}

bool gpt2_unicode_to_bytes(std::string_view text, std::string& bytes) {
  bytes.clear();
  for (size_t pos = 0; pos < text.size();) {
    size_t len = 1;
    const int32_t cp = utf8_decode(text, pos, len);
    const auto it = tables().to_byte.find(static_cast<uint32_t>(cp));
    if (cp < 0 || it == tables().to_byte.end()) return false;
    bytes += static_cast<char>(it->second);
    pos += len;
  }
  return true;
}

struct RegexSplitter::Impl {
  pcre2_code* code = nullptr;
};

RegexSplitter::RegexSplitter(const std::string& pattern, const std::string& where) : impl_(std::make_unique<Impl>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                              &error, &offset, nullptr);
  if (!impl_->code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw FormatError(where + ": the pre-tokenizer pattern does not compile at offset " + std::to_string(offset) + ": " +
                      reinterpret_cast<const char*>(message));
  }
}

RegexSplitter::~RegexSplitter() {
  if (impl_ && impl_->code) pcre2_code_free(impl_->code);
}

void RegexSplitter::split(std::string_view text, bool keep_matches, bool keep_gaps, std::vector<std::string>& out) const {
  pcre2_match_data* md = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t pos = 0, gap_begin = 0;
  while (pos <= text.size()) {
    const int rc = pcre2_match(impl_->code, subject, text.size(), pos, 0, md, nullptr);
    if (rc < 0) break;  // no match (or a matching limit): the rest is a gap
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
    const size_t begin = ov[0], end = ov[1];
    if (end == begin) {  // empty match: step over one code point
      size_t len = 1;
      if (begin >= text.size()) break;
      utf8_decode(text, begin, len);
      pos = begin + len;
      continue;
    }
    if (keep_gaps && begin > gap_begin) out.emplace_back(text.substr(gap_begin, begin - gap_begin));
    if (keep_matches) out.emplace_back(text.substr(begin, end - begin));
    gap_begin = pos = end;
  }
  if (keep_gaps && gap_begin < text.size()) out.emplace_back(text.substr(gap_begin));
  pcre2_match_data_free(md);
}

}  // namespace hs
