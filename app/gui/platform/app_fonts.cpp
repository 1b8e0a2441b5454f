#include "app/gui/platform/app_fonts.h"

#include <imgui.h>

#include <algorithm>

#include "app/gui/widgets/theme.h"
#include "core/model/next_token_rows.h"
#include "core/text/token_label.h"

namespace hs::gui {
namespace {

// The interface's size: AppState::ui_scale (Ctrl+= / Ctrl+-). Presenting, text is sized for the
// screen's pixels, not the desktop's DPI setting: a room reads a 1080-line projector the same
// whatever Xft.dpi says (a content scale of 2 would double every font and leave the maps a third
// of the panel). Larger screens get larger text.
float font_factor(const AppState& state, float window_scale) {
  if (!state.present.active) return state.ui_scale;
  const ImGuiIO& io = ImGui::GetIO();
  const float screen_lines = io.DisplaySize.y * io.DisplayFramebufferScale.y;
  return present_font_factor(state.present.font_scale, screen_lines) / window_scale;
}

}  // namespace

Fonts AppFonts::start(Window& window, const AppState& state, const StatusInfo& status) {
  collect(state, status, nullptr);
  theme_ = state.theme;
  return window.rebuild_fonts(factor_, present_, glyphs_.extra(), state.theme);
}

void AppFonts::update(Window& window, const AppState& state, UiContext& ui, const Derived* derived) {
  const float factor = font_factor(state, window.scale());
  const bool new_glyphs = collect(state, ui.status, derived);
  if (!new_glyphs && factor == factor_ && present_ == state.present.active && theme_ == state.theme) return;
  factor_ = factor;
  present_ = state.present.active;
  theme_ = state.theme;
  ui.fonts = window.rebuild_fonts(factor_, present_, glyphs_.extra(), theme_);
}

DrawnFonts AppFonts::drawn(const ImFont* body) const {
  DrawnFonts d;
  d.extra_glyphs = int(glyphs_.extra().size());
  for (const ImWchar c : glyphs_.extra())
    if (!body->FindGlyphNoFallback(c)) d.missing_glyphs.push_back(c);
  d.atlas_width = ImGui::GetIO().Fonts->TexWidth;
  d.atlas_height = ImGui::GetIO().Fonts->TexHeight;
  return d;
}

// The text whose characters the fonts must have: what changes per frame (the sentence, the
// messages, the model's path) always; the tokens and the lesson only when they change. True
// when a character is new.
bool AppFonts::collect(const AppState& state, const StatusInfo& status, const Derived* derived) {
  bool added = glyphs_.add_text(state.request.sentence);
  added |= glyphs_.add_text(status.error);
  added |= glyphs_.add_text(status.last_export);
  added |= glyphs_.add_text(state.session.file_name);
  added |= glyphs_.add_text(state.request.model_path);
  added |= glyphs_.add_text(state.request.tokenizer);
  if (derived && derived->generation != shown_) {
    shown_ = derived->generation;
    const auto add_run = [&](const RunAnalysis& a) {
      for (const std::string& t : a.run.tokens) added |= glyphs_.add_text(t);
      for (const std::string& t : a.run.next_tokens) added |= glyphs_.add_text(t);
      for (const std::string& t : a.map_labels) added |= glyphs_.add_text(t);
      // What the labels show: characters their byte pieces spell, the space and continuation marks.
      for (const std::string& t : token_labels(a.run.tokens)) added |= glyphs_.add_text(t);
    };
    if (derived->analysis) add_run(*derived->analysis);
    for (const CompareResult& c : derived->compare) {
      added |= glyphs_.add_text(c.label) | glyphs_.add_text(c.error);
      if (c.analysis) add_run(*c.analysis);
    }
    asked_ = 0;
  }
  // Predictions a view asked for since (core/model/next_token_rows.h): their characters too.
  const NextTokenRows* asked = derived && derived->analysis ? derived->analysis->run.next_token_rows.get() : nullptr;
  if (asked && asked->rows_computed() != asked_) {
    asked_ = asked->rows_computed();
    for (const std::string& t : asked->asked_labels()) added |= glyphs_.add_text(t);
  }
  if (state.lesson.lesson != lesson_) {
    lesson_ = state.lesson.lesson;
    if (lesson_) {
      added |= glyphs_.add_text(lesson_->title) | glyphs_.add_text(lesson_->description);
      for (const LessonStep& step : lesson_->steps) added |= glyphs_.add_text(step.title) | glyphs_.add_text(step.caption);
    }
  }
  return added;
}

}  // namespace hs::gui
