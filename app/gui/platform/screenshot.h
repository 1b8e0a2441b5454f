#pragma once
// Writes the window's back buffer to a PNG and, beside it (FILE.png.json), where each heatmap's
// cells were drawn, so tests can check pixels against the engine's values.
#include <string>

#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// Reads `width` x `height` pixels of the current back buffer. Returns false (with `error`) on failure.
bool write_screenshot(const std::string& path, int width, int height, const FrameReport& report, std::string& error);

}  // namespace hs::gui
