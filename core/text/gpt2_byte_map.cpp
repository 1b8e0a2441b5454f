#include "core/text/gpt2_byte_map.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <array>
#include <new>
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

// Unicode's White_Space property (PropList.txt): what \s means in GPT-2's regex (Python's
// `regex` module) and in Hugging Face tokenizers (Oniguruma). PCRE2's \s under UCP also matches
// U+180E MONGOLIAN VOWEL SEPARATOR, a format character since Unicode 6.3, which splits
// "a \u180eb" differently; so patterns spell White_Space out before PCRE2 sees them.
constexpr const char* kWhiteSpace =
    "\\x{09}-\\x{0D}\\x{20}\\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// Rewrites \s and \S: outside a character class as [White_Space] and [^White_Space], inside one
// as the White_Space ranges and \P{White_Space} (PCRE2 >= 10.40 knows the property). Other
// escapes, \Q...\E literals and POSIX [:classes:] are copied as they are.
std::string spell_white_space(const std::string& p) {
  const std::string ws = kWhiteSpace;
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char next = p[i + 1];
      if (next == 'Q') {
        const size_t end = p.find("\\E", i + 2);
        const size_t stop = end == std::string::npos ? p.size() : end + 2;
        out.append(p, i, stop - i);
        i = stop - 1;
      } else if (next == 's') {
        out += in_class ? ws : "[" + ws + "]";
        ++i;
      } else if (next == 'S') {
        out += in_class ? std::string("\\P{White_Space}") : "[^" + ws + "]";
        ++i;
      } else {
        out += c;
        out += next;
        ++i;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];  // a leading ] is a literal
      continue;
    }
    if (in_class && c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
      const size_t end = p.find(":]", i + 2);
      if (end != std::string::npos) {
        out.append(p, i, end + 2 - i);
        i = end + 1;
        continue;
      }
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

struct RegexSplitter::Impl {
  pcre2_code* code = nullptr;
  std::string where;
};

namespace {

struct MatchDataFree {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextFree {
  void operator()(pcre2_match_context* c) const { pcre2_match_context_free(c); }
};

// A match attempt runs under 2^8 match-limit units, then again under twice as many while it
// needs more, up to 2^23: what is charged is at most 4 times what it needed.
constexpr uint64_t kFirstMatchLimit = uint64_t(1) << 8;
constexpr uint64_t kLastMatchLimit = uint64_t(1) << 23;
constexpr int kMatchLimitStep = 1;  // bits

[[noreturn]] void throw_regex_error(const std::string& where, int rc, size_t at, const RegexBudget& budget) {
  const std::string sentence = "a sentence of " + std::to_string(budget.bytes) + " bytes";
  if (rc == PCRE2_ERROR_MATCHLIMIT) {
    throw InputError(where + ": the pattern's backtracking spent the regex budget of " + std::to_string(budget.total) +
                     " steps for " + sentence + " (2^22 + 2^12 a byte) at byte " + std::to_string(at) +
                     ": the pattern backtracks catastrophically on this text");
  }
  if (rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
    throw InputError(where + ": matching the pattern at byte " + std::to_string(at) + " of " + sentence +
                     " passes the regex budget's " + (rc == PCRE2_ERROR_HEAPLIMIT ? "memory limit (64 MiB)" : "depth limit"));
  }
  PCRE2_UCHAR message[256];
  pcre2_get_error_message(rc, message, sizeof message);
  throw InputError(where + ": matching the pattern at byte " + std::to_string(at) + " of " + sentence + " failed: " +
                   reinterpret_cast<const char*>(message));
}

}  // namespace

RegexSplitter::RegexSplitter(const std::string& raw_pattern, const std::string& where) : impl_(std::make_unique<Impl>()) {
  impl_->where = where;
  int error = 0;
  PCRE2_SIZE offset = 0;
  const auto compile = [&](const std::string& pattern) {
    return pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &error,
                         &offset, nullptr);
  };
  impl_->code = compile(spell_white_space(raw_pattern));
  if (!impl_->code) {
    // Report the error (and its offset) in the pattern as written.
    if (pcre2_code* raw = compile(raw_pattern)) {
      pcre2_code_free(raw);
      throw FormatError(where + ": the pre-tokenizer pattern does not compile once \\s is spelled as Unicode White_Space");
    }
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    throw FormatError(where + ": the pre-tokenizer pattern does not compile at offset " + std::to_string(offset) + ": " +
                      reinterpret_cast<const char*>(message));
  }
}

RegexSplitter::~RegexSplitter() {
  if (impl_ && impl_->code) pcre2_code_free(impl_->code);
}

// Leftmost-first matching by hand: one attempt anchored at each position in turn (what an
// unanchored pcre2_match does inside, but it applies the match limit to each position anew, so
// one call's work had no bound). Each attempt is charged the limit it ran under.
template <typename F>
void RegexSplitter::for_each_match(std::string_view text, RegexBudget& budget, F&& f) const {
  if (!utf8_is_valid(text)) throw InputError(impl_->where + ": the text to match is not valid UTF-8");
  const std::unique_ptr<pcre2_match_data, MatchDataFree> md(pcre2_match_data_create_from_pattern(impl_->code, nullptr));
  const std::unique_ptr<pcre2_match_context, MatchContextFree> context(pcre2_match_context_create(nullptr));
  if (!md || !context) throw std::bad_alloc();
  pcre2_set_heap_limit(context.get(), kRegexHeapLimitKiB);
  pcre2_set_depth_limit(context.get(), kRegexDepthLimit);
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const auto matches_at = [&](size_t at) {
    for (uint64_t limit = kFirstMatchLimit;; limit <<= kMatchLimitStep) {
      const uint64_t charged = std::min(limit, budget.left);
      pcre2_set_match_limit(context.get(), uint32_t(charged));
      const int rc = pcre2_match(impl_->code, subject, text.size(), at, PCRE2_ANCHORED | PCRE2_NO_UTF_CHECK, md.get(),
                                 context.get());
      budget.left -= charged;
      if (rc >= 0) return true;
      if (rc == PCRE2_ERROR_NOMATCH) return false;
      if (rc != PCRE2_ERROR_MATCHLIMIT || budget.left == 0 || limit >= kLastMatchLimit) {
        throw_regex_error(impl_->where, rc, at, budget);
      }
    }
  };
  const auto next_code_point = [&](size_t at) {
    size_t len = 1;
    utf8_decode(text, at, len);
    return at + len;
  };
  size_t pos = 0, gap_begin = 0;
  bool after_match = false;  // pos is where the previous match ended
  while (pos <= text.size()) {
    if (!matches_at(pos)) {
      if (pos == text.size()) break;
      pos = next_code_point(pos);
      after_match = false;
      continue;
    }
    const size_t end = pcre2_get_ovector_pointer(md.get())[1];
    if (end <= pos) {  // empty match: reported unless it touches the previous match (Oniguruma's
                       // find_iter), then step over one code point
      if (!after_match) {
        if (!f(gap_begin, pos, pos, false)) return;
        gap_begin = pos;
      }
      if (pos == text.size()) return;
      pos = next_code_point(pos);
      after_match = false;
      continue;
    }
    if (!f(gap_begin, pos, end, false)) return;
    gap_begin = pos = end;
    after_match = true;
  }
  f(gap_begin, text.size(), text.size(), true);  // the gap after the last match (maybe empty)
}

void RegexSplitter::split(std::string_view text, bool keep_matches, bool keep_gaps, std::vector<std::string>& out,
                          RegexBudget& budget) const {
  for_each_match(text, budget, [&](size_t gap_begin, size_t begin, size_t end, bool) {
    if (keep_gaps && begin > gap_begin) out.emplace_back(text.substr(gap_begin, begin - gap_begin));
    if (keep_matches && end > begin) out.emplace_back(text.substr(begin, end - begin));
    return true;
  });
}

std::string RegexSplitter::replace_all(std::string_view text, std::string_view content, size_t max_bytes,
                                       RegexBudget& budget) const {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes));
  for_each_match(text, budget, [&](size_t gap_begin, size_t begin, size_t end, bool) {
    out.append(text.substr(gap_begin, begin - gap_begin));
    if (end > begin) out.append(content);
    return out.size() <= max_bytes;
  });
  return out;
}

std::vector<TextSpan> RegexSplitter::find_matches(std::string_view text, RegexBudget& budget) const {
  std::vector<TextSpan> spans;
  for_each_match(text, budget, [&](size_t gap_begin, size_t begin, size_t end, bool last) {
    if (begin > gap_begin) spans.push_back({gap_begin, begin, false});
    if (!last) spans.push_back({begin, end, true});
    return true;
  });
  return spans;
}

}  // namespace hs
