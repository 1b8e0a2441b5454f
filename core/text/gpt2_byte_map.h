#pragma once
// GPT-2's byte-level alphabet and pre-tokenizer.
//   bytes_to_unicode: the printable bytes ! .. ~, ¡ .. ¬, ® .. ÿ map to themselves; the other 68
//   bytes map, in byte order, to U+0100, U+0101, ... (so a space 0x20 is "Ġ" U+0120).
//   pre-tokenizer regex: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   matched with Unicode classes (PCRE2_UTF | PCRE2_UCP), as the Python `regex` module does;
//   \s and \S mean Unicode White_Space in every pattern (PCRE2's own \s also matches U+180E).
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/text/split_behavior.h"

namespace hs {

extern const char* const kGpt2SplitPattern;

// The UTF-8 text of the code point byte b maps to.
const std::string& gpt2_byte_to_unicode(unsigned char b);

// Maps every byte of `bytes` to its code point (the vocabulary's alphabet).
std::string gpt2_bytes_to_unicode(std::string_view bytes);

// Inverse; returns false when `text` holds a code point outside the alphabet.
bool gpt2_unicode_to_bytes(std::string_view text, std::string& bytes);

// The backtracking a sentence's regex matching may take, in PCRE2's match-limit units (about
// 0.1 us each): 2^22 plus 2^12 per byte of the sentence, shared by every regex step of the
// tokenizer (a pattern such as (?:a|a){1,18}b tries 2^18 paths at each of the sentence's
// positions: 30 s for 1,000 "a" without a budget). Each match attempt is charged the limit it ran
// under (2^8, then doubled while it needs more, up to 2^23 at one position), so the work done is
// never more than what is charged, and what is charged at most 4 times the work.
constexpr uint64_t kRegexBudgetBase = uint64_t(1) << 22;
constexpr uint64_t kRegexBudgetPerByte = uint64_t(1) << 12;
// PCRE2's heap for one match attempt (backtracking frames), and its depth.
constexpr uint32_t kRegexHeapLimitKiB = 64 << 10;
constexpr uint32_t kRegexDepthLimit = 1u << 20;

struct RegexBudget {
  explicit RegexBudget(size_t text_bytes)
      : total(kRegexBudgetBase + kRegexBudgetPerByte * uint64_t(text_bytes)), left(total), bytes(text_bytes) {}
  uint64_t total, left;
  size_t bytes;  // of the sentence, for the message
};

// A compiled PCRE2 pattern that splits text into its matches and the gaps between them
// (Hugging Face's Split with behaviour "Isolated"; "Removed" drops the matches). Matching is
// charged to a RegexBudget: when it is spent, or a match attempt passes PCRE2's heap or depth
// limit, an InputError names `where`, the budget and the sentence (never a silent gap).
class RegexSplitter {
 public:
  // Throws FormatError (prefixed by `where`) when the pattern does not compile.
  RegexSplitter(const std::string& pattern, const std::string& where);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // text must be valid UTF-8. Appends the pieces, in order; none is empty.
  void split(std::string_view text, bool keep_matches, bool keep_gaps, std::vector<std::string>& out,
             RegexBudget& budget) const;

  // text must be valid UTF-8. tokenizers' find_matches: the matches (empty ones too, except one
  // that touches the previous match) and the gaps between them, in order, covering the text.
  std::vector<TextSpan> find_matches(std::string_view text, RegexBudget& budget) const;

  // text must be valid UTF-8. Every non-empty match (left to right, not overlapping) replaced by
  // `content`, taken literally (Hugging Face's Replace normalizer with a regex pattern). Stops
  // once the result passes max_bytes (the caller refuses it).
  std::string replace_all(std::string_view text, std::string_view content, size_t max_bytes, RegexBudget& budget) const;

 private:
  // f(gap_begin, match_begin, match_end, false) for each match (an empty one only when it does
  // not touch the previous match), then f(gap_begin, size, size, true); stops early when f
  // returns false.
  template <typename F>
  void for_each_match(std::string_view text, RegexBudget& budget, F&& f) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hs
