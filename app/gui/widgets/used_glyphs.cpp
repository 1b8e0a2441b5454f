#include "app/gui/widgets/used_glyphs.h"

#include "app/gui/widgets/theme.h"

namespace hs::gui {
namespace {

// Decodes one UTF-8 sequence at text[i]; returns its length (1 for an invalid byte, with
// `cp` = 0xFFFD).
size_t decode_utf8(const std::string& text, size_t i, unsigned& cp) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned c = byte(i);
  cp = 0xFFFD;
  size_t n = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if ((c & 0xE0) == 0xC0) n = 2, cp = c & 0x1F;
  else if ((c & 0xF0) == 0xE0) n = 3, cp = c & 0x0F;
  else if ((c & 0xF8) == 0xF0) n = 4, cp = c & 0x07;
  else return (cp = 0xFFFD), 1;
  if (i + n > text.size()) return (cp = 0xFFFD), 1;
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return (cp = 0xFFFD), 1;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  return n;
}

}  // namespace

bool UsedGlyphs::add_text(const std::string& text) {
  bool added = false;
  for (size_t i = 0; i < text.size();) {
    unsigned cp = 0;
    i += decode_utf8(text, i, cp);
    if (cp < 0x80 || cp > 0xFFFF || seen_[cp]) continue;
    seen_[cp] = true;
    if (in_base_glyph_ranges(cp) || extra_.size() >= kMaxExtra) continue;
    extra_.push_back(static_cast<ImWchar>(cp));
    added = true;
  }
  return added;
}

}  // namespace hs::gui
