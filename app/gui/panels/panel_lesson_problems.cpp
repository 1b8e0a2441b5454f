// The Lesson problems list: what check_loaded_lesson (lesson_check.h) found in a teacher's lesson
// as it loaded, the lines `headscope --check-lesson` prints, in a window over the bottom right
// corner; never on a slide (presenting, the status line is hidden too).
#include <imgui.h>

#include <algorithm>
#include <string>

#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {

bool lesson_problems_shown(const AppState& state) {
  const LessonPlayerState& l = state.lesson;
  return l.lesson && l.lesson == l.checked && !l.problems.empty();
}

std::string lesson_problems_summary(const AppState& state) {
  const size_t n = state.lesson.problems.size();
  return "this lesson has " + std::to_string(n) + (n == 1 ? " layout problem" : " layout problems") + " presenting at " +
         state.lesson.checked_at + " (Lesson problems; headscope --check-lesson FILE checks three sizes)";
}

void draw_lesson_problems(AppState& state) {
  LessonPlayerState& l = state.lesson;
  if (state.present.active || !lesson_problems_shown(state) || !l.problems_open) return;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float f = ImGui::GetFontSize();
  const ImVec2 size(std::min(vp->WorkSize.x * 0.5f, f * 48), std::min(vp->WorkSize.y * 0.4f, f * 16));
  ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x - f, vp->WorkPos.y + vp->WorkSize.y - f * 3), ImGuiCond_Appearing,
                          ImVec2(1, 1));
  ImGui::SetNextWindowSize(size, ImGuiCond_Appearing);
  if (ImGui::Begin("Lesson problems###lesson problems", &l.problems_open, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
    ImGui::PushTextWrapPos(0);
    ImGui::TextColored(tone(Tone::warning), "\"%s\" breaks the shipped lessons' projector rules when presented at %s:",
                       l.lesson->title.c_str(), l.checked_at.c_str());
    for (const std::string& p : l.problems) {
      ImGui::Bullet();
      ImGui::SameLine();
      ImGui::TextUnformatted(p.c_str());  // wrapped at the window's edge
    }
    ImGui::PopTextWrapPos();
  }
  ImGui::End();
}

}  // namespace hs::gui
