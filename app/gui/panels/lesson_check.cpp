#include "app/gui/panels/lesson_check.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <map>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"
#include "app/gui/widgets/drawn_text.h"
#include "app/gui/widgets/layout_rules.h"
#include "app/gui/widgets/ui_context.h"
#include "app/gui/work/compute.h"
#include "core/analysis/sweep_analysis.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

// An ImGui context of the check's own, dropped at the end; the caller's is current again.
class CheckContext {
 public:
  CheckContext() : previous_(ImGui::GetCurrentContext()), context_(ImGui::CreateContext()) {
    ImGui::SetCurrentContext(context_);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DeltaTime = 1.0f / 60.0f;
  }
  ~CheckContext() {
    ImGui::DestroyContext(context_);
    ImGui::SetCurrentContext(previous_);
  }
  CheckContext(const CheckContext&) = delete;
  CheckContext& operator=(const CheckContext&) = delete;

 private:
  ImGuiContext* previous_;
  ImGuiContext* context_;
};

// The window and fonts the app has presenting on `screen` in `theme` (app_fonts.cpp's factor
// for a window scale of 1).
Fonts present_fonts_for(const LessonCheckScreen& screen, Theme theme, FontRanges& ranges) {
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(float(screen.width), float(screen.height));
  io.Fonts->Clear();
  const float scale = present_font_factor(PresentationState{}.font_scale, float(screen.height));
  ranges = font_ranges({});  // the atlas reads them when it builds
  const Fonts fonts = load_fonts(scale, ranges);
  apply_presentation_style(scale, theme);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  return fonts;
}

// What the worker would hand back for the step's state: its maps, compare entries, sentence B
// of a minimal pair and the head-count sweep.
std::shared_ptr<Derived> derive_lesson_step(const AppState& state) {
  std::shared_ptr<Derived> d = compute_derived(state.request, 1);
  d->compare = compute_compare(compare_requests(state), 1);
  if (!state.contrast.sentence.empty()) d->contrast = compute_contrast(state.request, state.contrast.sentence, *d->analysis, 1);
  if (state.view == View::width) d->sweep = analyse_sweep(state.request, d->run().tokens);
  return d;
}

void draw_check_frame(AppState& state, const UiContext& ui, FrameReport& report) {
  report.heatmaps.clear();
  report.panels.clear();
  report.bars.clear();
  ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  draw_app(state, ui);
  ImGui::Render();
}

std::vector<LessonProblem> caption_word_problems(const Lesson& lesson) {
  std::vector<LessonProblem> out;
  for (size_t i = 0; i < lesson.steps.size(); ++i) {
    const int words = count_words(lesson.steps[i].caption);
    if (words > kCaptionMaxWords)
      out.push_back({int(i) + 1, "", "caption: " + std::to_string(words) + " words, at most " + std::to_string(kCaptionMaxWords) +
                                         " (move the rest to the step's \"notes\")"});
  }
  return out;
}

// The caption's lines as the lesson strip across a window `width` wide wraps it.
int caption_lines_across(const std::string& caption, const UiContext& ui, float width) {
  ImFont* font = ui.fonts.caption ? ui.fonts.caption : ImGui::GetFont();
  if (caption.empty() || !font) return 0;
  const float wrap = width - ImGui::GetStyle().WindowPadding.x * 2;
  return int(std::lround(font->CalcTextSizeA(font->FontSize, FLT_MAX, wrap, caption.c_str()).y / font->FontSize));
}

// One frame's problems, at most three of each kind ("small", "overlap", ...) and then how many
// more: a Difference step has a hundred small labels, and the first three say what to fix.
void add_frame_problems(std::vector<std::string> found, int step, const std::string& where, std::vector<LessonProblem>& out) {
  std::map<std::string, int> seen;
  for (std::string& p : found) {
    const std::string kind = p.substr(0, p.find(':'));
    if (++seen[kind] <= 3) out.push_back({step, where, std::move(p)});
  }
  for (const auto& [kind, n] : seen)
    if (n > 3) out.push_back({step, where, kind + ": " + std::to_string(n - 3) + " more like these"});
}

}  // namespace

const std::vector<LessonCheckScreen>& lesson_check_screens() {
  static const std::vector<LessonCheckScreen> screens = {{1280, 720, 0.35f}, {1366, 768, 0.35f}, {1920, 1080, 0.40f}};
  return screens;
}

LessonCheck check_lesson(const std::shared_ptr<const Lesson>& lesson, const std::vector<LessonCheckScreen>& screens,
                         const std::vector<Theme>& themes) {
  LessonCheck check;
  check.problems = caption_word_problems(*lesson);
  const CheckContext context;
  NullHeatmapImages images;
  FrameReport report;
  const std::vector<std::shared_ptr<const Lesson>> lessons = {lesson};
  FontRanges ranges;
  std::map<size_t, std::shared_ptr<Derived>> derived;  // per step, whatever the screen
  for (const LessonCheckScreen& screen : screens)
    for (const Theme theme : themes) {
      UiContext ui;
      ui.images = &images, ui.report = &report, ui.lessons = &lessons;
      ui.fonts = present_fonts_for(screen, theme, ranges);
      const std::string where = std::to_string(screen.width) + "x" + std::to_string(screen.height) +
                                (theme == Theme::dark ? " dark" : " light");
      for (size_t i = 0; i < lesson->steps.size(); ++i) {
        AppState state = default_app_state();
        state.present.active = true;
        state.theme = theme;
        start_lesson(state, lesson, int(i));
        try {
          if (!derived[i]) derived[i] = derive_lesson_step(state);
        } catch (const Error& e) {
          check.problems.push_back({int(i) + 1, where, std::string("model: ") + e.what()});
          continue;
        }
        ui.derived = derived[i].get();
        for (int f = 0; f < 3; ++f) draw_check_frame(state, ui, report);
        ++check.frames;
        LayoutRules rules;
        rules.display = ImGui::GetIO().DisplaySize;
        const bool maps = state.view != View::width && state.view != View::query && state.view != View::roles;
        rules.map_floor = maps ? screen.map_floor : 0.0f;
        rules.caption_lines_across = caption_lines_across(lesson->steps[i].caption, ui, rules.display.x);
        const std::vector<DrawnText> texts = collect_drawn_text(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
        add_frame_problems(layout_problems(report, texts, scrolling_windows(), rules), int(i) + 1, where, check.problems);
      }
    }
  std::stable_sort(check.problems.begin(), check.problems.end(),
                   [](const LessonProblem& a, const LessonProblem& b) { return a.step < b.step; });
  return check;
}

std::string format_lesson_problem(const Lesson& lesson, const LessonProblem& problem) {
  const size_t i = size_t(problem.step - 1);
  const std::string title = i < lesson.steps.size() ? lesson.steps[i].title : "";
  return "step " + std::to_string(problem.step) + " \"" + title + "\"" + (problem.screen.empty() ? "" : " at " + problem.screen) +
         ": " + problem.text;
}

namespace {

// A shipped lesson, or a file with its title and captions.
bool is_shipped_lesson(const Lesson& lesson, const std::vector<std::shared_ptr<const Lesson>>* shipped) {
  if (!shipped) return false;
  for (const auto& s : *shipped) {
    if (!s || s->title != lesson.title || s->steps.size() != lesson.steps.size()) continue;
    bool same = true;
    for (size_t i = 0; i < s->steps.size() && same; ++i) same = s->steps[i].caption == lesson.steps[i].caption;
    if (same) return true;
  }
  return false;
}

}  // namespace

void check_loaded_lesson(AppState& state, const std::vector<std::shared_ptr<const Lesson>>* shipped, ImVec2 display) {
  LessonPlayerState& l = state.lesson;
  if (!l.lesson || l.lesson == l.checked || display.x < 1 || display.y < 1) return;
  l.checked = l.lesson, l.problems.clear(), l.problems_open = true;
  const LessonCheckScreen screen{int(display.x), int(display.y), display.y >= 1080 ? 0.40f : 0.35f};
  l.checked_at = std::to_string(screen.width) + "x" + std::to_string(screen.height) + (state.theme == Theme::dark ? " dark" : " light");
  if (is_shipped_lesson(*l.lesson, shipped)) return;
  for (const LessonProblem& p : check_lesson(l.lesson, {screen}, {state.theme}).problems)
    l.problems.push_back(format_lesson_problem(*l.lesson, p));
}

}  // namespace hs::gui
