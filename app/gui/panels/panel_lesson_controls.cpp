// Presentation mode during a lesson: the caption strip shows only the controls the step unlocks
// ("try it yourself"), in one row, with the two numbers the lessons keep coming back to.
#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>

#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/derived.h"

namespace hs::gui {
namespace {

// A row of buttons; returns the clicked option or -1.
int choice_row(const char* id, const std::vector<int>& options, int current) {
  int clicked = -1;
  ImGui::PushID(id);
  for (size_t i = 0; i < options.size(); ++i) {
    if (i > 0) ImGui::SameLine();
    const bool on = options[i] == current;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    if (ImGui::Button(std::to_string(options[i]).c_str())) clicked = options[i];
    if (on) ImGui::PopStyleColor();
  }
  ImGui::PopID();
  return clicked;
}

}  // namespace

bool lesson_controls_unlocked(const AppState& state) {
  for (const LessonControl c : {LessonControl::d_model, LessonControl::heads, LessonControl::kv_heads, LessonControl::d_head,
                                LessonControl::causal, LessonControl::window, LessonControl::temperature, LessonControl::seed})
    if (!control_locked(state, c)) return true;
  return false;
}

void draw_lesson_controls(AppState& state, const UiContext& ui) {
  // One row under the caption (wrapping when it must), so no side column takes the maps' room.
  AttentionConfig& c = state.request.attention;
  const float f = ImGui::GetFontSize();
  const auto next = [&](float need) {
    ImGui::SameLine(0, f * 1.2f);
    if (ImGui::GetContentRegionAvail().x < need) ImGui::NewLine();
  };
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(accent_text(), "Try it yourself:");
  if (!control_locked(state, LessonControl::d_model)) {
    next(f * 10);
    int d = c.d_model;
    ImGui::SetNextItemWidth(f * 5);
    if (ImGui::InputInt("d_model", &d)) set_d_model(c, std::clamp(d, 1, kMaxUiDModel));
  }
  if (!control_locked(state, LessonControl::heads)) {
    next(f * 8);
    ImGui::TextUnformatted("heads");
    ImGui::SameLine();
    const int h = choice_row("heads", head_count_options(c.d_model), c.n_heads);
    if (h > 0) set_heads(c, h);
  }
  if (!control_locked(state, LessonControl::kv_heads)) {
    next(f * 12);
    ImGui::TextUnformatted("key/value heads");
    ImGui::SameLine();
    const int g = choice_row("kv", kv_group_options(c.n_heads), c.kv_heads());
    if (g > 0) c.n_kv_heads = g == c.n_heads ? 0 : g;
    ImGui::SameLine();
    ImGui::TextDisabled("(%s)", kv_kind(c.kv_heads(), c.n_heads));
  }
  if (!control_locked(state, LessonControl::causal)) {
    next(f * 8);
    ImGui::Checkbox("causal mask", &c.causal);
  }
  if (!control_locked(state, LessonControl::window)) {
    next(f * 18);
    bool windowed = c.window >= 0;
    if (ImGui::Checkbox("sliding window", &windowed)) c.window = windowed ? state.model.window_size : -1;
    if (windowed) {
      ImGui::SameLine();
      ImGui::SetNextItemWidth(f * 8);
      if (ImGui::SliderInt("##W", &state.model.window_size, 0, 16, "W = %d")) c.window = state.model.window_size;
    }
  }
  if (!control_locked(state, LessonControl::temperature)) {
    next(f * 14);
    ImGui::SetNextItemWidth(f * 8);
    ImGui::SliderFloat("temperature", &c.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  }
  if (!control_locked(state, LessonControl::seed)) {
    next(f * 10);
    int seed = int(state.request.seed);
    ImGui::SetNextItemWidth(f * 5);
    if (ImGui::InputInt("seed", &seed)) state.request.seed = uint64_t(std::max(seed, 0));
  }
  // The two numbers the lessons keep coming back to, of the model on screen: a checkpoint's (the
  // teaching model's 576 and 15,068,160) are its own, not the synthetic layer's settings.
  const bool checkpoint = !state.request.model_path.empty() && ui.derived && ui.derived->analysis;
  const ModelInfo* shown = checkpoint ? &ui.derived->run().info : nullptr;
  next(f * 16);
  ImGui::TextDisabled("head width");
  ImGui::SameLine();
  ImGui::Text("%d", shown ? shown->d_head : c.head_width());
  ImGui::SameLine(0, f);
  ImGui::TextDisabled("parameters");
  ImGui::SameLine();
  ImGui::TextUnformatted(format_count(shown ? shown->param_count : attention_param_count(c)).c_str());
}

}  // namespace hs::gui
