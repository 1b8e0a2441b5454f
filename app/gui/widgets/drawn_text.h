#pragma once
// Every piece of text a frame drew, read back from ImGui's draw lists (after ImGui::Render):
// its glyphs' rectangle, the clip rectangle it was drawn under, its pixel size, and whether a
// glyph was cut by the clip rectangle or the display. Layout checks (presenting at projector
// sizes) and the screenshot sidecar use it: it sees every text whichever widget drew it.
#include <imgui.h>

#include <string>
#include <vector>

namespace hs::gui {

struct DrawnText {
  std::string text;     // the glyphs as UTF-8, spaces where the pen skipped ahead
  std::string window;   // the ImGui window (draw list) it belongs to
  float px = 0;         // the font size it was drawn at, in pixels
  ImVec2 min, max;      // the glyphs' bounding box
  ImVec2 clip_min, clip_max;  // the clip rectangle of its draw command
  bool clipped = false;       // a glyph cut (or cut off) by the clip rectangle or the display
};

// One text item per run of glyphs on one line of one draw list, in drawing order.
std::vector<DrawnText> collect_drawn_text(const ImDrawData& data, const ImFontAtlas& atlas);

// Windows that scroll this frame (content larger than the window): their names and by how much.
std::vector<std::string> scrolling_windows();

// Two items overlap when their boxes share more than `slack` pixels each way.
bool texts_overlap(const DrawnText& a, const DrawnText& b, float slack = 1.0f);

}  // namespace hs::gui
