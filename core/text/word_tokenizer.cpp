#include "core/text/word_tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>

#include "core/util/utf8.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// Words with inner apostrophes, or one non-space character with what belongs to it: combining
// marks, variation selectors, emoji skin-tone modifiers, zero-width-joined sequences (a ZWJ
// family), and a pair of regional indicators (a flag). PCRE2 10.42's \X would also glue two
// adjacent emoji together, so the cluster rule is spelt out.
constexpr const char* kWordPattern =
    R"([\p{L}\p{M}\p{N}]+(?:['\x{2019}][\p{L}\p{M}\p{N}]+)*)"
    R"(|(?:[\x{1F1E6}-\x{1F1FF}]{2}|[^\s])(?:[\p{M}\x{1F3FB}-\x{1F3FF}]|\x{200D}[^\s])*)";

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

const pcre2_code* word_regex() {
  static const std::unique_ptr<pcre2_code, CodeDeleter> code = [] {
    int error = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kWordPattern), PCRE2_ZERO_TERMINATED,
                                  PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
    return std::unique_ptr<pcre2_code, CodeDeleter>(c);
  }();
  return code.get();
}

}  // namespace

std::vector<WordToken> tokenize_words(std::string_view sentence) {
  const std::string text = utf8_repair(sentence);
  const pcre2_code* re = word_regex();
  std::vector<WordToken> tokens;
  if (re) {
    std::unique_ptr<pcre2_match_data, MatchDeleter> match(pcre2_match_data_create_from_pattern(re, nullptr));
    PCRE2_SIZE start = 0;
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    while (start < text.size()) {
      // The pattern is fixed and linear (no nested repeats): PCRE2's default limits never bind.
      const int rc = pcre2_match(re, subject, text.size(), start, PCRE2_NO_UTF_CHECK, match.get(), nullptr);
      if (rc == PCRE2_ERROR_NOMATCH) break;
      if (rc < 0) throw InputError("the sentence could not be split into words (PCRE2 error " + std::to_string(rc) + ")");
      const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(match.get());
      if (ov[1] <= ov[0]) break;  // the pattern never matches empty; guard anyway
      tokens.push_back({text.substr(ov[0], ov[1] - ov[0]), ov[0], ov[1]});
      start = ov[1];
    }
  }
  if (tokens.empty()) {
    throw InputError("the sentence is empty: type at least one word");
  }
  return tokens;
}

std::vector<std::string> token_texts(const std::vector<WordToken>& tokens) {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (const auto& t : tokens) out.push_back(t.text);
  return out;
}

}  // namespace hs
