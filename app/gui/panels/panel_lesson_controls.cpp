// Presentation mode during a lesson: the model column shows only the controls the step
// unlocks ("try it yourself"), large, with the two numbers the lessons keep coming back to.
#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>

#include "app/gui/widgets/labels.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/panels/panels.h"

namespace hs::gui {
namespace {

// A row of buttons; returns the clicked option or -1.
int choice_row(const char* id, const std::vector<int>& options, int current) {
  int clicked = -1;
  ImGui::PushID(id);
  for (size_t i = 0; i < options.size(); ++i) {
    if (i > 0 && ImGui::GetContentRegionAvail().x > ImGui::GetFontSize() * 3) ImGui::SameLine();
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
  for (const char* c : {"d_model", "heads", "kv_heads", "d_head", "causal", "window", "temperature", "seed"})
    if (!control_locked(state, c)) return true;
  return false;
}

void draw_lesson_controls(AppState& state, const UiContext& ui) {
  AttentionConfig& c = state.request.attention;
  if (ui.fonts.heading) ImGui::PushFont(ui.fonts.heading);
  ImGui::TextColored(ImVec4(1.0f, 0.77f, 0.25f, 1.0f), "Try it yourself");
  if (ui.fonts.heading) ImGui::PopFont();
  ImGui::Spacing();
  if (!control_locked(state, "d_model")) {
    int d = c.d_model;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("d_model", &d)) set_d_model(c, std::clamp(d, 1, kMaxUiDModel));
  }
  if (!control_locked(state, "heads")) {
    ImGui::TextUnformatted("heads");
    const int h = choice_row("heads", head_count_options(c.d_model), c.n_heads);
    if (h > 0) set_heads(c, h);
  }
  if (!control_locked(state, "kv_heads")) {
    ImGui::TextUnformatted("key/value heads");
    const int g = choice_row("kv", kv_group_options(c.n_heads), c.kv_heads());
    if (g > 0) c.n_kv_heads = g == c.n_heads ? 0 : g;
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s: %d query head%s per key/value head", kv_kind(c.kv_heads(), c.n_heads),
                        c.n_heads / std::max(c.kv_heads(), 1), c.n_heads / std::max(c.kv_heads(), 1) == 1 ? "" : "s");
    ImGui::PopTextWrapPos();
  }
  if (!control_locked(state, "causal")) ImGui::Checkbox("causal mask", &c.causal);
  if (!control_locked(state, "window")) {
    bool windowed = c.window >= 0;
    if (ImGui::Checkbox("sliding window", &windowed)) c.window = windowed ? state.model.window_size : -1;
    if (windowed) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
      if (ImGui::SliderInt("##W", &state.model.window_size, 0, 16, "W = %d")) c.window = state.model.window_size;
    }
  }
  if (!control_locked(state, "temperature")) {
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    ImGui::SliderFloat("temperature", &c.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  }
  if (!control_locked(state, "seed")) {
    int seed = int(state.request.seed);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    if (ImGui::InputInt("seed", &seed)) state.request.seed = uint64_t(std::max(seed, 0));
  }
  ImGui::Separator();
  for (const auto& [label, value] : {std::pair<const char*, std::string>{"head width", std::to_string(c.head_width())},
                                     {"parameters", format_count(attention_param_count(c))}}) {
    ImGui::TextDisabled("%s", label);
    if (ui.fonts.title) ImGui::PushFont(ui.fonts.title);
    ImGui::TextUnformatted(value.c_str());
    if (ui.fonts.title) ImGui::PopFont();
  }
}

}  // namespace hs::gui
