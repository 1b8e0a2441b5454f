#pragma once
// Look and feel: a dark, high-contrast style (or a light one: dark on light, for washed-out
// projectors and print) that reads on a projector, DejaVu Sans with
// glyphs beyond Latin-1 (found at run time; ImGui's default font when it is missing), and for
// the characters DejaVu lacks (Chinese, Japanese, ...) a fallback font merged in, for just the
// characters the text uses.
#include <string>
#include <vector>

#include "app/gui/state/app_state.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// Sizes are multiplied by `scale` (the monitor's content scale). Sets current_theme().
void apply_style(float scale, Theme theme = Theme::dark);

// Presentation mode: black background and white text (light: white and black), stronger
// secondary text and frames, larger spacing; for projectors.
void apply_presentation_style(float scale, Theme theme = Theme::dark);
// The fonts' size factor presenting on a screen `screen_lines` pixels tall at the presenter's
// `font_scale` (Ctrl +/-): text is sized for the screen's pixels, not the desktop's DPI setting.
// Never under kPresentBodyFloorPx of body text (so at 1280x720, where the 1080-line layout
// would shrink it); the lesson panel's text is kPresentCaptionFloorPx there.
float present_font_factor(float font_scale, float screen_lines);
constexpr float kPresentBodyFloorPx = 20.0f, kPresentCaptionFloorPx = 24.0f;

// The theme the style was last built for (ImGui's style is global; so is this).
Theme current_theme();
// The window's background colour in the current style (what the GL clear uses).
ImVec4 background_colour();
// Accent text (titles, the selected head): amber on dark, dark orange on light.
ImVec4 accent_text();
// Colours that mean something, in the current theme (theme.cpp's one table: each has a dark and
// a light value; panels take their colours from here, not from literals).
enum class Tone { accent, mark, secondary, group, error, warning, success, generated, series_blue, series_green, series_orange, series_grey };
ImVec4 tone(Tone t);
ImU32 tone_u32(Tone t, float alpha = 1.0f);
// The text colour at `alpha`: faint lines, stripes and frames that read on either page.
ImU32 ink(float alpha);
// The page colour at `alpha`: backdrops behind labels drawn over maps.
ImU32 page(float alpha);
// The colormap a theme shows by default in presentation mode: cividis on black (colour-blind
// safe), viridis on white (its dark low end stands out from the page).
Colormap present_colormap(Theme theme);
// "dark" / "light"; parse_theme returns false for anything else.
const char* theme_name(Theme theme);
bool parse_theme(const std::string& name, Theme& out);

// True when the base ranges (DejaVu Sans's scripts) include `codepoint`.
bool in_base_glyph_ranges(unsigned codepoint);

// Zero-terminated [first, last] pairs for the atlas; ImGui keeps pointers into them until the
// atlas is built, so they must live as long as the atlas (the Window keeps them).
struct FontRanges {
  std::vector<ImWchar> all;       // the base ranges plus `extra`
  std::vector<ImWchar> fallback;  // `extra` only (empty when there is none)
};
FontRanges font_ranges(const std::vector<ImWchar>& extra);

// Adds body, heading and title fonts to the atlas, each with the fallback fonts (fonts-droid-
// fallback, else fonts-noto-cjk; then fonts-symbola; silently none) merged in for `ranges.fallback`. Returns the
// fonts (defaults if DejaVu is absent).
Fonts load_fonts(float scale, const FontRanges& ranges);

}  // namespace hs::gui
