#pragma once
// Lesson files (assets/lessons/*.json): a guided walk through an idea, one step per screen.
// Each step says only what changes: its "session" overlays the previous step's state (the
// session format of session_file.h), so a teacher writes short steps. A step may compare its
// state with others side by side, unlock controls for "try it yourself", or need a pretrained
// model. Documented in docs/lesson-format.md.
//
//   {"format": "headscope-lesson", "version": 1, "title": "...", "description": "...",
//    "steps": [{"title": "...", "caption": "...",
//               "session": {"model": {"heads": 1}, "view": {"panel": "grid"}},
//               "compare": [{"label": "4 heads", "session": {"model": {"heads": 4}}}],
//               "unlocked": ["heads", "sentence"], "needs_pretrained": false}]}
#include <string>
#include <vector>

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

// Names a step may unlock: sentence, d_model, heads, kv_heads, d_head, causal, window,
// temperature, seed, layer, head, queries, panel (every tab), color_scale, colormap, and one tab
// each: tab:heads, tab:head, tab:query, tab:difference, tab:average, tab:width, tab:roles.
const std::vector<std::string>& lesson_controls();

// Throws FormatError naming the file, the step (1-based) and the key at fault.
Lesson parse_lesson(const std::string& text, const std::string& name);
Lesson load_lesson(const std::string& path);

}  // namespace hs
