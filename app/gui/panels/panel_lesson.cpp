// The lesson caption panel: the step's title and caption, where we are (large when presenting),
// Previous / Next, what to load when a step needs a trained model that is not there, and when
// presenting the controls the step unlocks ("try it yourself", in one row instead of a column).
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>

#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"

namespace hs::gui {
namespace {

const char* kNeedsModel =
    "This step needs a trained model, and none is loaded: the maps below come from the random synthetic layer. "
    "Drop a checkpoint on the window (a Hugging Face folder such as gpt2, or a llama2.c stories260K.bin with its "
    "tokenizer.bin next to it), or start headscope with --model PATH.";

// Shown only presenting, to the class: no keys named on the slide (H or Space shows the maps).
const char* kHidden = "The maps are hidden: guess first.";

bool needs_model(const AppState& state, const LessonStep& step) {
  return step.needs_pretrained && state.request.model_path.empty();
}

// Presenter notes: a closed "Notes" line under the caption when not presenting; never on a slide.
bool shows_notes(const AppState& state, const LessonStep& step) { return !state.present.active && !step.notes.empty(); }

// The stepping buttons: "< Previous" and "Next >", or presenting (24 px text, a narrow caption
// column beside a tall map) "<" and ">" with the same IDs.
const char* previous_label(const AppState& state) { return state.present.active ? "<##previous" : "< Previous##previous"; }
const char* next_label(const AppState& state) { return state.present.active ? ">##next" : "Next >##next"; }

bool controls_row(const AppState& state) { return state.present.active && lesson_controls_unlocked(state); }

// Presenting, every text of the panel (caption, counter, buttons, "try it yourself") is in the
// caption font, 24 px on a 720-line screen; the title keeps the title font, larger still.
class LessonCaptionFont {
 public:
  LessonCaptionFont(const AppState& state, const UiContext& ui) : pushed_(state.present.active && ui.fonts.caption) {
    if (pushed_) ImGui::PushFont(ui.fonts.caption);
  }
  ~LessonCaptionFont() {
    if (pushed_) ImGui::PopFont();
  }
  LessonCaptionFont(const LessonCaptionFont&) = delete;
  LessonCaptionFont& operator=(const LessonCaptionFont&) = delete;

 private:
  bool pushed_;
};

// Presenting, the marks the token labels use, said once on screen (the hover that explains them
// is not there on a slide): "" when the tokens have none or the marks are off.
std::string space_mark_legend(const AppState& state, const UiContext& ui) {
  if (!state.present.active || !ui.derived) return "";
  bool dot = false, box = false;
  const auto scan = [&](const RunAnalysis& a) {
    for (size_t k = 0; k < a.run.tokens.size(); ++k) {
      const std::string label = display_token(a.run.tokens, k);
      dot |= label.find("\xC2\xB7") != std::string::npos;      // ·
      box |= label.find("\xE2\x90\xA3") != std::string::npos;  // ␣
    }
  };
  if (ui.derived->analysis) scan(*ui.derived->analysis);
  for (const CompareResult& c : ui.derived->compare)
    if (c.analysis) scan(*c.analysis);
  if (dot && box) return "\xC2\xB7 marks a space before a word; \xE2\x90\xA3 is a token that is only a space.";
  if (dot) return "\xC2\xB7 marks a space before a word.";
  if (box) return "\xE2\x90\xA3 is a token that is only a space.";
  return "";
}

// Where the title, the step counter and the buttons go in a panel `width` wide: the counter and
// buttons beside the title when they fit, else on the next line; the buttons under the counter in
// a column too narrow for both. The panel's height and its drawing both follow this.
struct LessonHeader {
  std::string where;          // "3 / 8" presenting, "step 3 of 8" otherwise
  float title_w = 0, title_h = 0;
  float buttons_w = 0;        // counter and both buttons
  bool beside_title = false;  // counter and buttons on the title's line
  bool buttons_below = false; // the buttons on a line of their own
};

LessonHeader lesson_header(const AppState& state, const UiContext& ui, const LessonStep& step, float wrap) {
  LessonHeader h;
  const int n = int(state.lesson.lesson->steps.size()), i = state.lesson.step;
  const bool big = state.present.active && ui.fonts.title;
  h.where = big ? format("%d / %d", i + 1, n) : format("step %d of %d", i + 1, n);
  const ImGuiStyle& style = ImGui::GetStyle();
  ImFont* title = ui.fonts.title ? ui.fonts.title : ImGui::GetFont();
  const ImVec2 t = title->CalcTextSizeA(title->FontSize, FLT_MAX, wrap, step.title.c_str());
  h.title_w = t.x, h.title_h = t.y;
  // Each item measured as ImGui sizes it (CalcTextSize rounds every label up): their sum is the
  // row's width to the pixel, so the right-aligned row never pushes the strip into scrolling.
  const float where_w = big ? std::floor(title->CalcTextSizeA(title->FontSize, FLT_MAX, 0, h.where.c_str()).x + 0.95f)
                            : ImGui::CalcTextSize(h.where.c_str()).x;
  h.buttons_w = ImGui::CalcTextSize(previous_label(state), nullptr, true).x +
                ImGui::CalcTextSize(next_label(state), nullptr, true).x + style.FramePadding.x * 4 + style.ItemSpacing.x * 2 +
                where_w;
  h.beside_title = h.title_w + style.ItemSpacing.x * 2 < wrap - h.buttons_w;
  h.buttons_below = h.buttons_w > wrap;
  return h;
}

}  // namespace

float lesson_column_min_width(const AppState& state, const UiContext& ui) {
  const LessonCaptionFont font(state, ui);
  const ImGuiStyle& style = ImGui::GetStyle();
  return ImGui::CalcTextSize(previous_label(state), nullptr, true).x + ImGui::CalcTextSize(next_label(state), nullptr, true).x +
         style.FramePadding.x * 4 + style.ItemSpacing.x + style.WindowPadding.x * 2 + style.WindowBorderSize * 2 + 1;
}

float lesson_panel_height(const AppState& state, const UiContext& ui, float width) {
  const LessonStep* step = active_step(state);
  if (!step) return 0;
  const LessonCaptionFont font(state, ui);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float f = ImGui::GetFontSize(), title_f = ui.fonts.title ? ui.fonts.title->FontSize : f;
  const float wrap = std::max(width - style.WindowPadding.x * 2, 100.0f);
  const LessonHeader head = lesson_header(state, ui, *step, wrap);
  const float counter_h = std::max(state.present.active ? title_f : f, ImGui::GetFrameHeight());
  float h = style.WindowPadding.y * 2 + 4;
  if (head.beside_title) {
    h += std::max(head.title_h, counter_h) + style.ItemSpacing.y;
  } else {
    h += head.title_h + style.ItemSpacing.y + counter_h + style.ItemSpacing.y;
    if (head.buttons_below) h += ImGui::GetFrameHeight() + style.ItemSpacing.y;
  }
  if (state.lesson.captions) h += ImGui::CalcTextSize(step->caption.c_str(), nullptr, false, wrap).y + style.ItemSpacing.y;
  const std::string legend = space_mark_legend(state, ui);
  if (!legend.empty()) h += ImGui::CalcTextSize(legend.c_str(), nullptr, false, wrap).y + style.ItemSpacing.y;
  if (needs_model(state, *step)) h += ImGui::CalcTextSize(kNeedsModel, nullptr, false, wrap).y + style.ItemSpacing.y;
  if (state.present.active && state.present.maps_hidden) h += ImGui::CalcTextSize(kHidden, nullptr, false, wrap).y + style.ItemSpacing.y;
  if (shows_notes(state, *step)) {
    h += ImGui::GetFrameHeight() + style.ItemSpacing.y;
    if (state.lesson.notes_open) h += ImGui::CalcTextSize(step->notes.c_str(), nullptr, false, wrap - style.IndentSpacing).y + style.ItemSpacing.y;
  }
  if (controls_row(state)) h += ImGui::GetFrameHeight() + style.ItemSpacing.y * 2 + 2;
  return h;
}

void draw_lesson(AppState& state, const UiContext& ui) {
  const LessonStep* step = active_step(state);
  if (!step) return;
  const int n = int(state.lesson.lesson->steps.size()), i = state.lesson.step;
  const LessonCaptionFont font(state, ui);
  if (ui.report) {
    // Where the caption panel is, for screenshot checks.
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale, p = ImGui::GetWindowPos(), sz = ImGui::GetWindowSize();
    ui.report->panels.push_back({"caption", step->title, ImVec2(p.x * fb.x, p.y * fb.y),
                                 ImVec2((p.x + sz.x) * fb.x, (p.y + sz.y) * fb.y)});
  }
  if (ui.fonts.title) ImGui::PushFont(ui.fonts.title);
  ImGui::PushTextWrapPos(0);  // a caption column beside the maps is narrow
  ImGui::TextColored(accent_text(), "%s", step->title.c_str());
  ImGui::PopTextWrapPos();
  if (ui.fonts.title) ImGui::PopFont();
  // Right-aligned: position (in the title font when presenting, readable from the back) and stepping buttons.
  const bool big = state.present.active && ui.fonts.title;
  const LessonHeader head = lesson_header(state, ui, *step, ImGui::GetWindowContentRegionMax().x - ImGui::GetWindowContentRegionMin().x);
  const std::string& where = head.where;
  const float right = ImGui::GetWindowContentRegionMax().x - head.buttons_w;
  if (head.beside_title) ImGui::SameLine(right);
  else ImGui::SetCursorPosX(std::max(right, ImGui::GetCursorPosX()));
  if (big) {
    ImGui::PushFont(ui.fonts.title);
    ImGui::TextUnformatted(where.c_str());
    ImGui::PopFont();
    if (ui.report) {
      const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale, a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      ui.report->panels.push_back({"step counter", where, ImVec2(a.x * fb.x, a.y * fb.y), ImVec2(b.x * fb.x, b.y * fb.y)});
    }
  } else {
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", where.c_str());
  }
  // A column too narrow for the counter and both buttons: the buttons on the next line.
  if (!head.buttons_below) ImGui::SameLine();
  ImGui::BeginDisabled(i == 0);
  if (ImGui::Button(previous_label(state))) go_to_step(state, i - 1);
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(i + 1 >= n);
  if (ImGui::Button(next_label(state))) go_to_step(state, i + 1);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered() && !state.present.active)  // no keys named on a slide (docs/lessons.md lists them)
    ImGui::SetTooltip("Right / Page Down; Left / Page Up goes back; Home: first step; C: captions");
  ImGui::PushTextWrapPos(0);
  if (state.lesson.captions) {
    ImGui::TextUnformatted(step->caption.c_str());
    if (ui.report) {  // where the caption's lines are, for the layout checks (at most two presenting)
      const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale, a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
      ui.report->panels.push_back({"caption text", step->caption, ImVec2(a.x * fb.x, a.y * fb.y), ImVec2(b.x * fb.x, b.y * fb.y)});
    }
  }
  const std::string legend = space_mark_legend(state, ui);
  if (!legend.empty()) ImGui::TextDisabled("%s", legend.c_str());
  if (needs_model(state, *step)) ImGui::TextColored(tone(Tone::warning), "%s", kNeedsModel);
  if (state.present.active && state.present.maps_hidden) ImGui::TextColored(accent_text(), "%s", kHidden);
  if (shows_notes(state, *step)) {
    ImGui::SetNextItemOpen(state.lesson.notes_open);
    state.lesson.notes_open = ImGui::TreeNode("Notes");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The step's presenter notes (not shown while presenting)");
    if (state.lesson.notes_open) {
      ImGui::TextUnformatted(step->notes.c_str());
      ImGui::TreePop();
    }
  }
  ImGui::PopTextWrapPos();
  if (controls_row(state)) {
    ImGui::Separator();
    draw_lesson_controls(state, ui);
  }
}

}  // namespace hs::gui
