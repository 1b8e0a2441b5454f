#pragma once
// The rules a frame is held to presenting (a lesson step on a projector): one frame's drawn
// texts, maps and colour bars in, one line per problem out, each starting with its kind
// ("small: ...", "caption: ..."). The shipped lessons' layout test and `headscope --check-lesson`
// both apply them (app/gui/panels/lesson_check.h), so a teacher's own lesson meets the same bar:
//   clipped    a text cut by its clip rectangle or the window
//   shortened  a text ending in "…"
//   small      lesson-panel text under lesson_px (24 px), any other under other_px (20 px)
//   overlap    two texts over each other
//   scrolls    a window whose content needs scrolling
//   scale      a colour bar with fewer than two numbers on its scale
//   maps       the step's maps cover less than map_floor of the window
//   caption    a caption over caption_lines lines across the window (a caption column beside a
//              tall map wraps the same words to more, narrower lines: measured across)
//   hint       a keyboard or mouse hint ("click", "Ctrl+", "wheel", ...) on the slide
//   unlabelled a map of up to kLabelEveryTokenUpTo (24) rows and columns, drawn with token labels,
//              with a row that has no label left of its row of maps, or a column none under its
//              column of maps (labels thinned to every k-th token); a thumbnail drawn without
//              labels beside a map of the same tokens labelled on both edges (the Average view's
//              heads beside their labelled average) is not held to it; any other map is, on both
//              edges (a grid of unlabelled tiles, a map with column labels only).
//              A map too small for every label, labelled with the tokens its step names alone
//              (HeatmapSpec::named: the step's queries), is held to those instead; and on a map of
//              any size, a row the step names without its label is a problem too
//   title      a map's title (a head's name over its tile) smaller than the row labels of its band
#include <string>
#include <vector>

#include "app/gui/widgets/drawn_text.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// The most words a slide's caption has, and its most lines at 1280x720; a longer explanation
// goes to the step's notes.
constexpr int kCaptionMaxWords = 30, kCaptionMaxLines = 2;
// A map of at most this many tokens labels every row and column on a slide (no thinning).
constexpr int kLabelEveryTokenUpTo = 24;

struct LayoutRules {
  ImVec2 display;                            // the window's size
  float map_floor = 0;                       // the subject maps' share of the window; 0: not measured
  float lesson_px = kPresentCaptionFloorPx;  // text in the lesson panel (window "##lesson")
  float other_px = kPresentBodyFloorPx;      // every other text
  int caption_lines = kCaptionMaxLines;      // ... across the window
  int caption_lines_across = 0;              // the caption wrapped across the window (set by the caller)                    // wrapped lines of the step's caption (kCaptionMaxLines)
};

std::vector<std::string> layout_problems(const FrameReport& report, const std::vector<DrawnText>& texts,
                                         const std::vector<std::string>& scrolling, const LayoutRules& rules);

// True for text telling the person at the keyboard what to press or click ("click a token;
// Ctrl+click adds it", "wheel: zoom", "Hover a header ..."); single words (a token) never are.
bool is_input_hint(const std::string& text);

// Words separated by white space.
int count_words(const std::string& text);

// The lines of drawn text inside `box` in window `window` (texts within half a line of each
// other's top are one line).
int text_lines_in(const std::vector<DrawnText>& texts, const std::string& window, ImVec2 box_min, ImVec2 box_max);

}  // namespace hs::gui
