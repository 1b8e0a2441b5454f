#pragma once
// Lesson files (assets/lessons/*.json): a guided walk through an idea, one step per screen.
// Each step says only what changes: its "session" overlays the previous step's state (the
// session format of session_file.h), so a teacher writes short steps. A step may compare its
// state with others side by side, unlock controls for "try it yourself", or need a pretrained
// model. Documented in docs/lesson-format.md.
//
//   {"format": "headscope-lesson", "version": 1, "title": "...", "description": "...",
//    "steps": [{"title": "...", "caption": "...", "label": "1 head",
//               "session": {"model": {"heads": 1}, "view": {"panel": "heads"}},
//               "compare": [{"label": "4 heads", "session": {"model": {"heads": 4}}}],
//               "unlocked": ["heads", "sentence"], "needs_pretrained": false}]}
#include <optional>
#include <string>
#include <vector>

#include "core/export/view_registry.h"
#include "core/session/session_file.h"

namespace hs {

constexpr int kLessonVersion = 1;

struct LessonCompare {
  std::string label;
  Session session;  // the step's state with this entry's overlay
};

struct LessonStep {
  std::string title;
  std::string caption;
  std::string notes;                   // presenter notes: the longer explanation, never on the slide
  std::string label;                   // names the step's own block beside its compare entries ("correct")
  Session session;                     // complete state (overlays applied)
  std::vector<LessonCompare> compare;  // shown side by side with the step's own state
  std::vector<std::string> unlocked;   // control names the step leaves free (see lesson_controls())
  bool needs_pretrained = false;       // the step only makes sense with a checkpoint loaded
};

struct Lesson {
  std::string title;
  std::string description;
  std::vector<LessonStep> steps;
};

// The controls a step may unlock, typed: the app asks control_locked(state, LessonControl::heads),
// so a misspelt control is a compile error, and a lesson file's names are checked against this
// one table when it loads (an unknown name is refused). `panel` frees every tab; a step frees one
// tab with "tab:NAME", NAME a view of core/export/view_registry.h ("tab:heads").
enum class LessonControl {
  sentence, d_model, heads, kv_heads, d_head, causal, window, temperature, seed, layer, head, queries, panel,
  color_scale, colormap,  // the last: lesson_file.cpp's table ends here
};
// Its name in lesson files: "sentence", ..., "color_scale", "colormap".
const char* lesson_control_name(LessonControl control);
// The control of that name in lesson files, or none.
std::optional<LessonControl> find_lesson_control(const std::string& name);
// Every name a lesson file may list in "unlocked": the controls in the enum's order, then
// "tab:NAME" for each of the app's tabs.
const std::vector<std::string>& lesson_controls();
// True when `step` lists `control` in its "unlocked".
bool step_unlocks(const LessonStep& step, LessonControl control);
// True when `step` unlocks the tab that shows `view` ("tab:NAME").
bool step_unlocks_tab(const LessonStep& step, View view);

// Throws FormatError naming the file, the step (1-based) and the key at fault: a wrong type, an
// unknown key (with the nearest known one), or a checkpoint that is neither a file or folder nor
// a model that comes with headscope (core/model/shipped_models.h), checked here, not when the
// step opens.
Lesson parse_lesson(const std::string& text, const std::string& name);

// The presenter's printout of a lesson: its title, then every step's number, title, caption and
// presenter notes ("notes: none" for a step without), as `headscope --lesson NAME --notes` prints it.
std::string lesson_handout(const Lesson& lesson);
Lesson load_lesson(const std::string& path);

}  // namespace hs
