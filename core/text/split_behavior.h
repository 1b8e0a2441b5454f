#pragma once
// Hugging Face tokenizers' split of a text by a pattern (normalizer.rs NormalizedString::split):
// the pattern's find_matches cuts the whole text into spans, each a match or the gap between
// matches (pattern.rs; empty matches count, as Oniguruma reports them); `invert` swaps the two
// kinds; then the behaviour decides what each span becomes:
//   Removed             gaps are words, matches vanish
//   Isolated            every span is a word
//   MergedWithPrevious  a match joins the word before it ("a-b" by "-": "a-", "b")
//   MergedWithNext      a match joins the word after it ("a-b": "a", "-b")
//   Contiguous          consecutive spans of one kind join ("a--b": "a", "--", "b")
// A match that follows another match starts a word of its own in both Merged behaviours. Empty
// words are dropped (PreTokenizedString::split).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hs {

struct TextSpan {
  size_t begin = 0, end = 0;  // byte offsets
  bool is_match = false;
};

enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// "Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"; nullopt otherwise.
std::optional<SplitBehavior> split_behavior_named(const std::string& name);

// Appends the words of `text` cut at `spans` (in order, covering the text).
void split_by_spans(std::string_view text, std::vector<TextSpan> spans, SplitBehavior behavior, bool invert,
                    std::vector<std::string>& out);

// Spans where each code point for which is_match holds is a match of its own (tokenizers' char
// patterns: Punctuation's is_punc, CharDelimiterSplit's delimiter).
std::vector<TextSpan> code_point_spans(std::string_view text, bool (*is_match)(char32_t));

}  // namespace hs
