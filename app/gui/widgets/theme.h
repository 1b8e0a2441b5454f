#pragma once
// Look and feel: a dark, high-contrast style that reads on a projector, DejaVu Sans with
// glyphs beyond Latin-1 (found at run time; ImGui's default font when it is missing).
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// Sizes are multiplied by `scale` (the monitor's content scale).
void apply_style(float scale);

// Presentation mode: black background, white text, brighter secondary text and frames, larger
// spacing; for projectors.
void apply_presentation_style(float scale);

// Adds body, heading and title fonts to the atlas. Returns the fonts (defaults if DejaVu is absent).
Fonts load_fonts(float scale);

}  // namespace hs::gui
