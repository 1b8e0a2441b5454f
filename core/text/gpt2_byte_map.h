#pragma once
// GPT-2's byte-level alphabet and pre-tokenizer.
//   bytes_to_unicode: the printable bytes ! .. ~, ¡ .. ¬, ® .. ÿ map to themselves; the other 68
//   bytes map, in byte order, to U+0100, U+0101, ... (so a space 0x20 is "Ġ" U+0120).
//   pre-tokenizer regex: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   matched with Unicode classes (PCRE2_UTF | PCRE2_UCP), as the Python `regex` module does;
//   \s and \S mean Unicode White_Space in every pattern (PCRE2's own \s also matches U+180E).
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

extern const char* const kGpt2SplitPattern;

// The UTF-8 text of the code point byte b maps to.
const std::string& gpt2_byte_to_unicode(unsigned char b);

// Maps every byte of `bytes` to its code point (the vocabulary's alphabet).
std::string gpt2_bytes_to_unicode(std::string_view bytes);

// Inverse; returns false when `text` holds a code point outside the alphabet.
bool gpt2_unicode_to_bytes(std::string_view text, std::string& bytes);

// A compiled PCRE2 pattern that splits text into its matches and the gaps between them
// (Hugging Face's Split with behaviour "Isolated"; "Removed" drops the matches).
class RegexSplitter {
 public:
  // Throws FormatError (prefixed by `where`) when the pattern does not compile.
  RegexSplitter(const std::string& pattern, const std::string& where);
  ~RegexSplitter();
  RegexSplitter(const RegexSplitter&) = delete;
  RegexSplitter& operator=(const RegexSplitter&) = delete;

  // text must be valid UTF-8. Appends the pieces, in order; none is empty.
  void split(std::string_view text, bool keep_matches, bool keep_gaps, std::vector<std::string>& out) const;

  // text must be valid UTF-8. Every non-empty match (left to right, not overlapping) replaced by
  // `content`, taken literally (Hugging Face's Replace normalizer with a regex pattern).
  std::string replace_all(std::string_view text, std::string_view content) const;

 private:
  // f(gap_begin, match_begin, match_end) for each non-empty match, then f(gap_begin, size, size).
  template <typename F>
  void for_each_match(std::string_view text, F&& f) const;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hs
