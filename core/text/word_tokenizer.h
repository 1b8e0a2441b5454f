#pragma once
// The synthetic model's tokenizer: words and punctuation. A word is a run of letters, marks
// and digits (Unicode classes, via PCRE2), with inner apostrophes kept ("don't", "Priya's");
// every other non-space character (punctuation, symbols, an emoji with its modifiers, a flag,
// a ZWJ sequence) is a token of its own.
// Invalid UTF-8 is repaired to U+FFFD first, so the labels are always printable.
#include <string>
#include <string_view>
#include <vector>

namespace hs {

struct WordToken {
  std::string text;   // the token as shown on the axes (valid UTF-8)
  size_t byte_begin;  // offsets into the repaired sentence
  size_t byte_end;
};

// Throws InputError when the sentence holds no token (empty or only spaces).
std::vector<WordToken> tokenize_words(std::string_view sentence);

std::vector<std::string> token_texts(const std::vector<WordToken>& tokens);

}  // namespace hs
