#include "core/text/normalizers.h"

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

const std::string kSpaceSymbol = "\xE2\x96\x81";  // ▁ U+2581

// Every `from` in s (left to right, not overlapping) replaced by `to`, in one pass; stops once the
// result passes max_bytes (the caller refuses it).
std::string replaced(const std::string& s, const std::string& from, const std::string& to, size_t max_bytes) {
  if (from.empty()) return s;
  std::string out;
  size_t pos = 0;
  for (size_t hit; (hit = s.find(from, pos)) != std::string::npos && out.size() <= max_bytes; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out.append(to);
  }
  if (out.size() <= max_bytes) out.append(s, pos, std::string::npos);
  return out;
}

// Keeps the code points `keep` accepts, each replaced by what `map` makes of it.
template <typename Keep, typename Map>
std::string filter_map(std::string_view text, Keep&& keep, Map&& map) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, [&](char32_t c, size_t pos, size_t len) {
    if (!keep(c)) return;
    const char32_t m = map(c);
    if (m == c) out.append(text.substr(pos, len));
    else utf8_append(out, uint32_t(m));
  });
  return out;
}

std::string strip(std::string_view text, bool left, bool right) {
  size_t begin = 0, end = text.size();
  if (left) {
    while (begin < end) {
      size_t len = 1;
      const int32_t c = utf8_decode(text, begin, len);
      if (c < 0 || !unicode_is_white_space(char32_t(c))) break;
      begin += len;
    }
  }
  if (right) {
    while (end > begin) {
      size_t start = end - 1;
      while (start > begin && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) --start;
      size_t len = 1;
      const int32_t c = utf8_decode(text, start, len);
      if (c < 0 || !unicode_is_white_space(char32_t(c))) break;
      end = start;
    }
  }
  return std::string(text.substr(begin, end - begin));
}

bool is_nmt_removed(char32_t c) {
  return (c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F || c == 0x8F || c == 0x9F;
}

bool is_nmt_space(char32_t c) {
  return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 || (c >= 0x200B && c <= 0x200F) ||
         c == 0x2028 || c == 0x2029 || c == 0x2581 || c == 0xFEFF || c == 0xFFFD;
}

std::string bert_normalize(std::string text, const NormalizeStep& s) {
  if (s.clean_text) {
    text = filter_map(
        text,
        [](char32_t c) { return !(c == 0 || c == 0xFFFD || (c != '\t' && c != '\n' && c != '\r' && unicode_is_other(c))); },
        [](char32_t c) { return c == '\t' || c == '\n' || c == '\r' || unicode_is_white_space(c) ? char32_t(' ') : c; });
  }
  if (s.chinese_chars) {
    std::string out;
    out.reserve(text.size());
    for_each_code_point(text, [&](char32_t c, size_t pos, size_t len) {
      if (is_bert_chinese_char(c)) out += ' ';
      out.append(text, pos, len);
      if (is_bert_chinese_char(c)) out += ' ';
    });
    text = std::move(out);
  }
  if (s.strip_accents) {
    text = filter_map(unicode_normalize(text, NormalForm::nfd), [](char32_t c) { return !unicode_is_nonspacing_mark(c); },
                      [](char32_t c) { return c; });
  }
  if (s.lowercase) text = unicode_lowercase(text);
  return text;
}

}  // namespace

bool is_bert_chinese_char(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
         (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(char32_t c) {
  const bool ascii_punct = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) || (c >= 0x7B && c <= 0x7E);
  return ascii_punct || unicode_is_punctuation(c);
}

std::string SentencePieceNormalizer::normalize(std::string_view text, bool first, size_t max_bytes) const {
  const bool with_prefix = first || !prefix_first_only;
  // 1. Rules, one match at a time from the left: (normalized piece, source bytes consumed).
  std::string ruled;
  ruled.reserve(text.size() + 8);
  std::vector<size_t> piece_ends;  // where each piece ends in `ruled` (for the whitespace pass)
  for (size_t pos = 0; pos < text.size() && ruled.size() <= max_bytes;) {
    if (const auto [length, value] = user_defined.longest_prefix(text, pos); length > 0) {
      (void)value;
      ruled.append(text, pos, length);
      pos += length;
    } else if (const auto [rule, consumed] = rules ? rules->longest_rule(text, pos) : std::pair<std::string_view, size_t>{{}, 0};
               consumed > 0) {
      ruled.append(rule);
      pos += consumed;
    } else {
      size_t len = 1;
      if (utf8_decode(text, pos, len) < 0) ruled += "\xEF\xBF\xBD";  // one U+FFFD per bad byte run
      else ruled.append(text, pos, len);
      pos += len;
    }
    piece_ends.push_back(ruled.size());
  }
  // 2.-4. Whitespace, piece by piece as normalizer.cc: the dummy prefix first; leading spaces of
  // the text and of a piece that follows a piece ending in a space are dropped; spaces are escaped
  // as they are appended; then trailing (escaped) spaces are dropped, and a dummy suffix added.
  const std::string space = escape_whitespaces ? kSpaceSymbol : " ";
  const bool dummy = add_dummy_prefix && with_prefix && !text.empty();
  std::string out;
  out.reserve(ruled.size() + ruled.size() / 2 + 3);
  if (dummy && !treat_whitespace_as_suffix) out += space;
  bool previous_space = remove_extra_whitespaces;
  size_t begin = 0;
  for (const size_t end : piece_ends) {
    std::string_view piece(ruled.data() + begin, end - begin);
    begin = end;
    while (previous_space && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    if (!piece.empty()) {
      for (const char c : piece) {
        if (c == ' ') out += space;
        else out += c;
      }
      previous_space = piece.back() == ' ';
    }
    if (!remove_extra_whitespaces) previous_space = false;
  }
  if (remove_extra_whitespaces)
    while (out.size() >= space.size() && out.compare(out.size() - space.size(), space.size(), space) == 0) out.resize(out.size() - space.size());
  if (out.empty()) return out;  // nothing but whitespace: no dummy suffix either
  if (dummy && treat_whitespace_as_suffix) out += space;
  return out;
}

size_t normalized_size_limit(size_t text_bytes) { return kNormalizedGrowth * text_bytes + kNormalizedSlack; }

std::string NormalizeStep::apply(std::string t, bool first, size_t max_bytes, RegexBudget& budget) const {
  const size_t given = t.size();
  std::string out = run(std::move(t), first, max_bytes, budget);
  if (out.size() > max_bytes) {
    throw InputError((where.empty() ? std::string("the tokenizer's normalizer") : where) + " turns " + std::to_string(given) +
                     " bytes of text into more than " + std::to_string(max_bytes) + " (the limit: " +
                     std::to_string(kNormalizedGrowth) + " times the text plus " + std::to_string(kNormalizedSlack) +
                     " bytes)");
  }
  return out;
}

std::string NormalizeStep::run(std::string t, bool first, size_t max_bytes, RegexBudget& budget) const {
  switch (kind) {
    case Kind::prepend:
      return t.empty() ? t : text + t;
    case Kind::replace:
      return replaced(t, text, content, max_bytes);
    case Kind::replace_regex:
      return regex->replace_all(t, content, max_bytes, budget);
    case Kind::unicode:
      return unicode_normalize(t, form);
    case Kind::lowercase:
      return unicode_lowercase(t);
    case Kind::strip_accents:
      return filter_map(t, [](char32_t c) { return !unicode_is_mark(c); }, [](char32_t c) { return c; });
    case Kind::strip:
      return strip(t, left, right);
    case Kind::nmt:
      return filter_map(t, [](char32_t c) { return !is_nmt_removed(c); },
                        [](char32_t c) { return is_nmt_space(c) ? char32_t(' ') : c; });
    case Kind::bert:
      return bert_normalize(std::move(t), *this);
    case Kind::precompiled:
      return charsmap->normalize_graphemes(t, max_bytes);
    case Kind::sentencepiece:
      return sentencepiece->normalize(t, first, max_bytes);
  }
  return t;
}

}  // namespace hs
