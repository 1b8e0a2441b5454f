#include "core/text/split_behavior.h"

#include <algorithm>

#include "core/text/unicode_text.h"

namespace hs {

std::optional<SplitBehavior> split_behavior_named(const std::string& name) {
  if (name == "Removed") return SplitBehavior::removed;
  if (name == "Isolated") return SplitBehavior::isolated;
  if (name == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
  if (name == "MergedWithNext") return SplitBehavior::merged_with_next;
  if (name == "Contiguous") return SplitBehavior::contiguous;
  return std::nullopt;
}

void split_by_spans(std::string_view text, std::vector<TextSpan> spans, SplitBehavior behavior, bool invert,
                    std::vector<std::string>& out) {
  if (invert)
    for (TextSpan& s : spans) s.is_match = !s.is_match;
  std::vector<TextSpan> words;  // is_match here: the span is removed
  words.reserve(spans.size());
  bool previous_match = false;
  switch (behavior) {
    case SplitBehavior::removed:
      words = std::move(spans);
      break;
    case SplitBehavior::isolated:
      for (const TextSpan& s : spans) words.push_back({s.begin, s.end, false});
      break;
    case SplitBehavior::contiguous:
      for (const TextSpan& s : spans) {
        if (s.is_match == previous_match && !words.empty()) words.back().end = s.end;
        else words.push_back({s.begin, s.end, false});
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::merged_with_previous:
      for (const TextSpan& s : spans) {
        if (s.is_match && !previous_match && !words.empty()) words.back().end = s.end;
        else words.push_back({s.begin, s.end, false});
        previous_match = s.is_match;
      }
      break;
    case SplitBehavior::merged_with_next:  // the same from the right
      for (size_t i = spans.size(); i-- > 0;) {
        const TextSpan& s = spans[i];
        if (s.is_match && !previous_match && !words.empty()) words.back().begin = s.begin;
        else words.push_back({s.begin, s.end, false});
        previous_match = s.is_match;
      }
      std::reverse(words.begin(), words.end());
      break;
  }
  for (const TextSpan& w : words)
    if (!w.is_match && w.end > w.begin) out.emplace_back(text.substr(w.begin, w.end - w.begin));
}

std::vector<TextSpan> code_point_spans(std::string_view text, bool (*is_match)(char32_t)) {
  std::vector<TextSpan> spans;
  size_t gap = 0;
  for_each_code_point(text, [&](char32_t c, size_t pos, size_t len) {
    if (!is_match(c)) return;
    if (pos > gap) spans.push_back({gap, pos, false});
    spans.push_back({pos, pos + len, true});
    gap = pos + len;
  });
  if (text.size() > gap) spans.push_back({gap, text.size(), false});
  return spans;
}

}  // namespace hs
