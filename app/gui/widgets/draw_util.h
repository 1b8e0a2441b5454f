#pragma once
// Small drawing helpers on top of ImDrawList: rotated text, colormap colours, section titles.
#include <imgui.h>

#include "core/render/colormap.h"

namespace hs::gui {

// Text turned 90 degrees counter-clockwise (reads bottom to top), its end at `top_centre`.
void add_text_up(ImDrawList* dl, ImFont* font, float size, ImVec2 top_centre, ImU32 colour, const char* text);

// The colormap's colour for t in [0, 1] (the same table the shader uses).
ImU32 colormap_u32(Colormap c, float t, float alpha = 1.0f);

// Category k's colour (core/render/category_palette.h: Okabe-Ito, one per head), its black drawn
// in the text colour so that it reads on the dark theme too.
ImU32 category_u32(int k);

// A dashed line from a to b (dashes of 3 x thickness, gaps of 2 x).
void add_dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness);

// Black or white, whichever reads better on colormap colour t.
ImU32 text_colour_on(Colormap c, float t);

// A table cell showing `text` on the colormap's colour at t in [0, 1] (a value over the column's
// largest: t = v / max), the text black or white, whichever reads better on it (text_colour_on).
void coloured_value_cell(Colormap c, float t, const char* text, float alpha = 1.0f);

// A heading in the title font, followed by an optional dim explanation line.
void section_title(ImFont* font, const char* title, const char* explanation = nullptr);

// Toolbars wrap to a second line instead of running off their panel: SameLine() when the next
// item, `width` pixels wide, still fits on the line (`spacing` after the last one: -1 the style's);
// else the item starts the next line.
void same_line_if_fits(float width, float spacing = -1.0f);
// SameLine() when a checkbox labelled `label` still fits on the line, else the next line.
void same_line_if_room(const char* label);
// What toolbar items take, for same_line_if_fits: a checkbox (or radio button) with its label,
// a frame `field` pixels wide with its label ("" for none), a text.
float checkbox_width(const char* label);
float labelled_width(float field, const char* label);
float text_width(const char* text);
// A dim explanation line that wraps at the panel's edge (between words) instead of running off it.
void wrapped_hint(const char* text);

// A little "(?)" marker that shows `text` when hovered.
void help_marker(const char* text);

// Colours used across panels.
ImU32 accent_colour(float alpha = 1.0f);
ImU32 dim_text_colour();

}  // namespace hs::gui
