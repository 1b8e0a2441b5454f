#pragma once
// A lesson held to the shipped lessons' layout and text rules (app/gui/widgets/layout_rules.h):
// every step presented at 1280x720, 1366x768 and 1920x1080 in both themes, drawn headless (an
// ImGui context of its own, no window, no GPU) and read back from the draw lists; each caption
// also counted (at most kCaptionMaxWords words). `headscope --check-lesson FILE` prints the
// problems; the shipped lessons' test expects none.
#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "app/gui/state/app_state.h"
#include "app/gui/widgets/theme.h"
#include "core/session/lesson_file.h"

namespace hs::gui {

struct LessonCheckScreen {
  int width = 0, height = 0;
  float map_floor = 0;  // the share of the window a step's maps cover at least
};
// 1280x720 and 1366x768 (maps 35%), 1920x1080 (maps 40%).
const std::vector<LessonCheckScreen>& lesson_check_screens();

struct LessonProblem {
  int step = 0;        // 1-based
  std::string screen;  // "1280x720 light"; "" for a problem of the file itself (a long caption)
  std::string text;    // "small: ...", "caption: 41 words, at most 30 ..." (layout_rules.h's kinds)
};

struct LessonCheck {
  std::vector<LessonProblem> problems;
  int frames = 0;  // frames drawn and checked
};

// Draws 3 frames of each step on each screen in each theme and checks the last. Restores the
// caller's ImGui context (or none).
LessonCheck check_lesson(const std::shared_ptr<const Lesson>& lesson, const std::vector<LessonCheckScreen>& screens,
                         const std::vector<Theme>& themes = {Theme::dark, Theme::light});

// "step 3 \"3. The reshape ...\" at 1280x720 light: small: ..."
std::string format_lesson_problem(const Lesson& lesson, const LessonProblem& problem);

// The app's check of a lesson as it loads (--lesson FILE, a lesson file opened or dropped): the
// checks above at the window's size (`display`, maps 40% from 1080 lines, else 35%) in the
// state's theme, into state.lesson.problems (the Lesson problems list and the status line). A
// shipped lesson (one of `shipped`, by title and captions) is not checked: the tests hold it to
// the rules at the three projector sizes. Does nothing for a lesson checked already. Call between
// frames: it draws on an ImGui context of its own.
void check_loaded_lesson(AppState& state, const std::vector<std::shared_ptr<const Lesson>>* shipped, ImVec2 display);

}  // namespace hs::gui
