#pragma once
// The app's font atlas, kept up to date between frames. It is rebuilt when the text on screen
// has a character it lacks (CJK, ... come from a fallback font, only the characters in use:
// UsedGlyphs), when the size changes (Ctrl+= / Ctrl+-: AppState::ui_scale; presenting: sized for
// the screen's pixels), and when the theme or presentation mode changes.
#include <cstdint>
#include <memory>

#include "app/gui/platform/window.h"
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/ui_context.h"
#include "app/gui/widgets/used_glyphs.h"

namespace hs::gui {

class AppFonts {
 public:
  // The first atlas: the state's text (no result yet) at factor 1 in the state's theme.
  Fonts start(Window& window, const AppState& state, const StatusInfo& status);
  // Before a frame's ImGui::NewFrame: rebuilds ui.fonts when the text, size, theme or
  // presentation mode asks for it.
  void update(Window& window, const AppState& state, UiContext& ui, const Derived* derived);
  // What a screenshot reports of the atlas: the extra characters, those `body` lacks, its size.
  DrawnFonts drawn(const ImFont* body) const;

 private:
  bool collect(const AppState& state, const StatusInfo& status, const Derived* derived);

  UsedGlyphs glyphs_;
  uint64_t shown_ = UINT64_MAX;              // the result whose text was collected last
  int64_t asked_ = 0;                        // its predictions computed on request, when collected last
  std::shared_ptr<const Lesson> lesson_;     // the lesson whose text was collected last
  float factor_ = 1.0f;                      // the atlas's size, theme and presentation mode
  bool present_ = false;
  Theme theme_ = Theme::dark;
};

}  // namespace hs::gui
