#include "core/text/precompiled_charsmap.h"

#include <cstring>

#include "core/text/unicode_text.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

uint32_t unit_offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }
uint32_t unit_label(uint32_t unit) { return unit & ((1u << 31) | 0xFFu); }
bool unit_has_leaf(uint32_t unit) { return (unit >> 8) & 1u; }
uint32_t unit_value(uint32_t unit) { return unit & ((1u << 31) - 1); }

}  // namespace

PrecompiledCharsMap::PrecompiledCharsMap(std::string_view blob, const std::string& where) {
  if (blob.empty()) return;  // no rules
  if (blob.size() < 4) throw FormatError(where + ": precompiled_charsmap has " + std::to_string(blob.size()) + " bytes; expected at least 4");
  uint32_t trie_size = 0;
  for (int i = 3; i >= 0; --i) trie_size = (trie_size << 8) | static_cast<uint8_t>(blob[size_t(i)]);
  if (trie_size % 4 != 0 || size_t(trie_size) > blob.size() - 4) {
    throw FormatError(where + ": precompiled_charsmap says its trie has " + std::to_string(trie_size) +
                      " bytes; expected a multiple of 4 within the " + std::to_string(blob.size() - 4) + " bytes that follow");
  }
  units_.resize(trie_size / 4);
  for (size_t u = 0; u < units_.size(); ++u) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(blob[4 + u * 4 + size_t(i)]);
    units_[u] = v;
  }
  strings_ = std::string(blob.substr(4 + trie_size));
  if (!utf8_is_valid(strings_)) throw FormatError(where + ": precompiled_charsmap's replacement strings are not valid UTF-8");
}

template <typename F>
void PrecompiledCharsMap::common_prefixes(std::string_view key, F&& f) const {
  if (units_.empty()) return;
  uint32_t pos = unit_offset(units_[0]);
  for (size_t i = 0; i < key.size(); ++i) {
    const uint8_t c = static_cast<uint8_t>(key[i]);
    if (c == 0) return;  // keys never hold NUL
    pos ^= c;
    if (pos >= units_.size()) return;
    const uint32_t unit = units_[pos];
    if (unit_label(unit) != c) return;
    pos ^= unit_offset(unit);
    if (unit_has_leaf(unit)) {
      if (pos >= units_.size()) return;
      if (!f(i + 1, unit_value(units_[pos]))) return;
    }
  }
}

bool PrecompiledCharsMap::replacement(uint32_t value, std::string_view& out) const {
  if (value >= strings_.size()) return false;
  const char* begin = strings_.data() + value;
  const void* nul = std::memchr(begin, 0, strings_.size() - value);
  const size_t length = nul ? size_t(static_cast<const char*>(nul) - begin) : strings_.size() - value;
  out = std::string_view(begin, length);
  // A value pointing into the middle of a character would cut it: such a rule is ignored.
  return utf8_is_valid(out);
}

std::pair<std::string_view, size_t> PrecompiledCharsMap::longest_rule(std::string_view text, size_t pos) const {
  std::pair<std::string_view, size_t> best{{}, 0};
  common_prefixes(text.substr(pos), [&](size_t length, uint32_t value) {
    std::string_view r;
    if (replacement(value, r)) best = {r, length};
    return true;
  });
  return best;
}

bool PrecompiledCharsMap::first_rule(std::string_view chunk, std::string_view& out) const {
  bool found = false;
  common_prefixes(chunk, [&](size_t, uint32_t value) {
    found = replacement(value, out);
    return !found;
  });
  return found;
}

std::string PrecompiledCharsMap::normalize_graphemes(std::string_view text, size_t max_bytes) const {
  if (units_.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t begin = 0;
  for (const size_t end : grapheme_ends(text)) {
    if (out.size() > max_bytes) break;
    const std::string_view grapheme = text.substr(begin, end - begin);
    begin = end;
    std::string_view rule;
    if (grapheme.size() < 6 && first_rule(grapheme, rule)) {
      out.append(rule);
      continue;
    }
    for_each_code_point(grapheme, [&](char32_t, size_t pos, size_t len) {
      const std::string_view one = grapheme.substr(pos, len);
      if (first_rule(one, rule)) out.append(rule);
      else out.append(one);
    });
  }
  return out;
}

}  // namespace hs
