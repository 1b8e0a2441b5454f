#pragma once
// The characters the app's text uses beyond the base font's ranges (Chinese, Japanese, ...), so
// the font atlas holds exactly those from the fallback font: a CJK font has ~30,000 glyphs, a
// sentence a few dozen. The app feeds it the sentence, tokens and messages each frame and
// rebuilds the atlas between frames when something new appears.
#include <imgui.h>

#include <cstddef>
#include <string>
#include <vector>

namespace hs::gui {

class UsedGlyphs {
 public:
  // Adds the codepoints of UTF-8 `text` that the base ranges lack. Returns true when one was
  // new. Invalid UTF-8 is skipped; codepoints beyond what ImWchar holds (U+FFFF) are ignored.
  bool add_text(const std::string& text);

  // The codepoints added so far, in the order they appeared (at most kMaxExtra).
  const std::vector<ImWchar>& extra() const { return extra_; }

  // More than this many distinct extra characters are not added (the atlas stays a few MB);
  // the rest show as ImGui's fallback box.
  static constexpr size_t kMaxExtra = 4096;

 private:
  std::vector<bool> seen_ = std::vector<bool>(0x10000, false);
  std::vector<ImWchar> extra_;
};

}  // namespace hs::gui
