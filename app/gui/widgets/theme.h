#pragma once
// Look and feel: a dark, high-contrast style that reads on a projector, DejaVu Sans with
// glyphs beyond Latin-1 (found at run time; ImGui's default font when it is missing), and for
// the characters DejaVu lacks (Chinese, Japanese, ...) a fallback font merged in, for just the
// characters the text uses.
#include <vector>

#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// Sizes are multiplied by `scale` (the monitor's content scale).
void apply_style(float scale);

// Presentation mode: black background, white text, brighter secondary text and frames, larger
// spacing; for projectors.
void apply_presentation_style(float scale);

// True when the base ranges (DejaVu Sans's scripts) include `codepoint`.
bool in_base_glyph_ranges(unsigned codepoint);

// Zero-terminated [first, last] pairs for the atlas; ImGui keeps pointers into them until the
// atlas is built, so they must live as long as the atlas (the Window keeps them).
struct FontRanges {
  std::vector<ImWchar> all;       // the base ranges plus `extra`
  std::vector<ImWchar> fallback;  // `extra` only (empty when there is none)
};
FontRanges font_ranges(const std::vector<ImWchar>& extra);

// Adds body, heading and title fonts to the atlas, each with the fallback font (fonts-droid-
// fallback, else fonts-noto-cjk; silently none) merged in for `ranges.fallback`. Returns the
// fonts (defaults if DejaVu is absent).
Fonts load_fonts(float scale, const FontRanges& ranges);

}  // namespace hs::gui
