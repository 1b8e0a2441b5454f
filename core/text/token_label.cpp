#include "core/text/token_label.h"

#include <algorithm>
#include <cstdio>

#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

const char* const kDot = "\xC2\xB7";            // U+00B7 middle dot: a space
const char* const kOpenBox = "\xE2\x90\xA3";  // U+2423: a token of spaces only
const char* const kContinued = "\xE2\x80\xA6";  // U+2026: this token's bytes start a character completed later
constexpr uint32_t kSpaceMark = 0x2581;         // "▁", the loaders' space

// One piece of a token: a code point written as text, or a byte-fallback piece "<0xHH>".
struct Unit {
  size_t token = 0;
  bool is_byte = false;
  uint32_t value = 0;  // the code point (U+FFFD for invalid UTF-8), or the byte
};

// A character spelled by byte pieces: units [first, last] of the flat list, and its code point.
struct ByteChar {
  size_t first = 0, last = 0;
  uint32_t cp = 0;
};

// "<0xHH>" at text[pos] -> its byte, or -1.
int byte_piece(const std::string& text, size_t pos) {
  if (text.size() < pos + 6 || text.compare(pos, 3, "<0x") != 0 || text[pos + 5] != '>') return -1;
  int v = 0;
  for (size_t k = pos + 3; k < pos + 5; ++k) {
    const char c = text[k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void split_token(const std::string& text, size_t token, std::vector<Unit>& out) {
  for (size_t pos = 0; pos < text.size();) {
    const int b = byte_piece(text, pos);
    if (b >= 0) {
      out.push_back({token, true, uint32_t(b)});
      pos += 6;
      continue;
    }
    size_t len = 1;
    const int32_t cp = utf8_decode(text, pos, len);
    out.push_back({token, false, cp < 0 ? 0xFFFDu : uint32_t(cp)});
    pos += len;
  }
}

// Byte pieces in a row (within a token or across tokens) that are one UTF-8 character, the rule of
// utf8_decode: the lead byte says the length, the others are continuation bytes.
std::vector<ByteChar> byte_chars(const std::vector<Unit>& units) {
  std::vector<ByteChar> chars;
  for (size_t u = 0; u < units.size(); ++u) {
    if (!units[u].is_byte || units[u].value < 0x80) continue;  // ASCII bytes: characters by themselves
    size_t n = 0;
    while (n < 4 && u + n < units.size() && units[u + n].is_byte) ++n;
    std::string bytes;
    for (size_t k = 0; k < n; ++k) bytes += char(units[u + k].value);
    size_t len = 1;
    const int32_t cp = utf8_decode(bytes, 0, len);
    if (cp < 0) continue;
    chars.push_back({u, u + len - 1, uint32_t(cp)});
    u += len - 1;
  }
  return chars;
}

bool is_space(uint32_t cp) { return cp == ' ' || cp == kSpaceMark; }

// Characters without a visible glyph of their own: zero-width spaces and joiners, direction marks,
// word joiners, variation selectors, the byte-order mark, the soft hyphen, C1 controls.
bool invisible(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0xFE00 && cp <= 0xFE0F) || cp == 0xFEFF;
}

std::string byte_name(uint32_t byte) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "<0x%02X>", unsigned(byte & 0xFF));
  return buf;
}

std::string code_point_name(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", unsigned(cp));
  return buf;
}

// Appends one character as the label shows it; `named` tracks whether the text ends in a U+ name
// (two names in a row are kept apart by a space).
void append_char(std::string& out, uint32_t cp, const TokenLabelOptions& o, bool& named) {
  std::string s;
  bool name = false;
  if (is_space(cp)) s = o.space == SpaceMark::dot ? kDot : o.space == SpaceMark::text ? " " : "";
  else if (cp == '\n') s = "\xE2\x86\xB5";  // ↵
  else if (cp == '\t') s = "\xE2\x87\xA5";  // ⇥
  else if (cp < 0x20) utf8_append(s, 0x2400 + cp);  // "␀" .. "␟" (carriage return "␍")
  else if (cp == 0x7F) utf8_append(s, 0x2421);       // "␡"
  else if (cp > 0xFFFF || invisible(cp) || (o.drawable && !o.drawable(cp))) s = code_point_name(cp), name = true;
  else utf8_append(s, cp);
  if (s.empty()) return;
  if (name && named) out += ' ';
  out += s;
  named = name;
}

// The label of token `t` given the flat units of tokens around it (those of `t` included whole).
std::string label_of(const std::vector<Unit>& units, const std::vector<ByteChar>& chars, size_t t, const TokenLabelOptions& o) {
  std::string out;
  bool named = false, any = false, all_space = true;
  size_t c = 0;
  for (size_t u = 0; u < units.size(); ++u) {
    while (c < chars.size() && chars[c].last < u) ++c;
    if (units[u].token != t) continue;
    any = true;
    const Unit& x = units[u];
    if (!is_space(x.value) || x.is_byte) all_space = false;
    if (c < chars.size() && chars[c].first <= u) {  // a byte of a character spelled by bytes
      if (u == chars[c].last) append_char(out, chars[c].cp, o, named);
      else if (units[chars[c].last].token != t && (u + 1 == units.size() || units[u + 1].token != t)) out += kContinued, named = false;
      continue;
    }
    if (x.is_byte && x.value >= 0x80) {
      out += byte_name(x.value);
      named = false;
    } else {
      append_char(out, x.value, o, named);
    }
  }
  if (!any) return "\xE2\x88\x85";  // "∅"
  // A token of spaces only: an open box per space ("␣"), in either mode; a lone dot would read
  // like the full stop ".".
  if (all_space && o.space != SpaceMark::text) {
    out.clear();
    for (size_t u = 0; u < units.size(); ++u)
      if (units[u].token == t) out += kOpenBox;
  }
  return out;
}

// Units of tokens [from, to) and the characters their bytes spell.
std::vector<Unit> units_of(const std::vector<std::string>& tokens, size_t from, size_t to) {
  std::vector<Unit> units;
  for (size_t k = from; k < to; ++k) split_token(tokens[k], k, units);
  return units;
}

// A character of four bytes spans at most four tokens: those around i are enough.
constexpr size_t kReach = 4;

}  // namespace

const char* space_mark_name(SpaceMark mark) {
  return mark == SpaceMark::none ? "none" : mark == SpaceMark::text ? "text" : "dot";
}

SpaceMark parse_space_mark(const std::string& name) {
  if (name == "dot") return SpaceMark::dot;
  if (name == "none") return SpaceMark::none;
  throw InputError("space mark '" + name + "' is not one of dot, none");
}

std::string token_label(const std::vector<std::string>& tokens, size_t i, const TokenLabelOptions& options) {
  if (i >= tokens.size()) return "";
  const size_t from = i > kReach ? i - kReach : 0, to = std::min(tokens.size(), i + kReach + 1);
  const std::vector<Unit> units = units_of(tokens, from, to);
  return label_of(units, byte_chars(units), i, options);
}

std::vector<std::string> token_labels(const std::vector<std::string>& tokens, const TokenLabelOptions& options) {
  std::vector<std::string> out;
  out.reserve(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) out.push_back(token_label(tokens, i, options));
  return out;
}

std::string token_bytes_note(const std::vector<std::string>& tokens, size_t i, const TokenLabelOptions& options) {
  if (i >= tokens.size()) return "";
  const size_t from = i > kReach ? i - kReach : 0, to = std::min(tokens.size(), i + kReach + 1);
  const std::vector<Unit> units = units_of(tokens, from, to);
  std::string note;
  for (const ByteChar& c : byte_chars(units)) {
    if (units[c.first].token > i || units[c.last].token < i) continue;
    std::string bytes;
    for (size_t u = c.first; u <= c.last; ++u) bytes += byte_name(units[u].value);
    const size_t t0 = units[c.first].token, t1 = units[c.last].token;
    std::string shown;
    bool named = false;
    append_char(shown, c.cp, options, named);
    note += std::string(note.empty() ? "" : "\n") + "bytes " + bytes +
            (t0 == t1 ? " (token " + std::to_string(t0) + ")" : " (tokens " + std::to_string(t0) + "-" + std::to_string(t1) + ")") +
            " spell \"" + shown + "\"" + (shown == code_point_name(c.cp) ? "" : " " + code_point_name(c.cp));
  }
  return note;
}

}  // namespace hs
