// Model controls (left column): the source switch and Open box (panel_open_model.cpp); for the
// synthetic model its shape, key/value groups, mask, temperature, seed; always shows the head
// width and the parameter count (which does not change with the head count).
#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

constexpr const char* kNone = "\xE2\x80\x94";  // an em dash: no number (the shape cannot exist)


void big_number(const UiContext& ui, const char* label, const std::string& value, const char* help) {
  ImGui::BeginGroup();
  ImGui::TextDisabled("%s", label);
  if (ui.fonts.title) ImGui::PushFont(ui.fonts.title);
  ImGui::TextUnformatted(value.c_str());
  if (ui.fonts.title) ImGui::PopFont();
  ImGui::EndGroup();
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
}

// A row of toggle buttons, one per option; returns the clicked option or -1.
int option_buttons(const char* id, const std::vector<int>& options, int current, float width) {
  int clicked = -1;
  float x = 0;
  ImGui::PushID(id);
  for (int o : options) {
    const std::string label = std::to_string(o);
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2 + 8;
    if (x > 0 && x + w <= width) ImGui::SameLine();
    else x = 0;
    x += w + ImGui::GetStyle().ItemSpacing.x;
    const bool on = o == current;
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    if (ImGui::Button(label.c_str(), ImVec2(w, 0))) clicked = o;
    if (on) ImGui::PopStyleColor();
  }
  ImGui::PopID();
  return clicked;
}

void draw_shape(AppState& state) {
  AttentionConfig& c = state.request.attention;
  const float width = ImGui::GetContentRegionAvail().x;
  int d_model = c.d_model;
  ImGui::SetNextItemWidth(width * 0.5f);
  {
    LockScope lock(state, LessonControl::d_model);  // a lesson step may lock it
    if (ImGui::InputInt("d_model", &d_model, 1, 8)) set_d_model(c, d_model);
  }
  ImGui::SameLine();
  help_marker("Width of the token vectors. The synthetic model embeds each word as a random vector of this size.");

  bool decoupled = c.d_head > 0;
  if (!decoupled) {
    ImGui::Text("heads");
    help_marker(heads_rule_text(c.d_model).c_str());
    LockScope lock(state, LessonControl::heads);
    const int h = option_buttons("heads", head_count_options(c.d_model), c.n_heads, width);
    if (h > 0) set_heads(c, h);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("only divisors of %d: each head gets d_model / heads dimensions", c.d_model);
    ImGui::PopTextWrapPos();
  } else {
    int heads = c.n_heads, d_head = c.d_head;
    LockScope lock(state, LessonControl::d_head);
    ImGui::SetNextItemWidth(width * 0.5f);
    if (ImGui::SliderInt("heads", &heads, 1, std::max(16, c.n_heads))) set_heads(c, heads);
    ImGui::SetNextItemWidth(width * 0.5f);
    if (ImGui::SliderInt("head width", &d_head, 1, std::max(64, c.d_head))) c.d_head = std::max(d_head, 1);
  }
  {
    LockScope lock(state, LessonControl::d_head);
    if (ImGui::Checkbox("decoupled head width", &decoupled)) set_decoupled(c, decoupled);
  }
  help_marker("Usually d_head = d_model / heads. Decoupled: choose the head width yourself; "
              "Q, K, V project to heads x d_head and the output projects back to d_model.");
}

// `possible`: the shape can exist (else no cache sizes: they would be a shape's that cannot).
void draw_groups(AppState& state, bool possible) {
  AttentionConfig& c = state.request.attention;
  ImGui::Text("key/value heads");
  help_marker("Grouped-query attention: query head h reads key/value head h / (heads / groups). "
              "Fewer key/value heads shrink the KV cache; MQA keeps just one.");
  LockScope lock(state, LessonControl::kv_heads);
  if (ImGui::BeginTable("kv", 3, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    ImGui::TableSetupColumn("groups");
    ImGui::TableSetupColumn("kind");
    ImGui::TableSetupColumn("KV cache / token");
    ImGui::TableHeadersRow();
    for (int g : kv_group_options(c.n_heads)) {
      AttentionConfig option = c;
      option.n_kv_heads = g;
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const bool on = c.kv_heads() == g;
      if (ImGui::Selectable(std::to_string(g).c_str(), on, ImGuiSelectableFlags_SpanAllColumns))
        c.n_kv_heads = g == c.n_heads ? 0 : g;
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(kv_kind(g, c.n_heads));
      ImGui::TableNextColumn();
      const int64_t floats = kv_cache_floats_per_token(option);
      if (possible) ImGui::Text("%s floats (%s)", format_count(floats).c_str(), format_bytes(floats * 4).c_str());
      else ImGui::TextDisabled("%s", kNone);
    }
    ImGui::EndTable();
  }
}

void draw_mask_and_seed(AppState& state) {
  AttentionConfig& c = state.request.attention;
  const float width = ImGui::GetContentRegionAvail().x;
  {
    LockScope lock(state, LessonControl::causal);
    ImGui::Checkbox("causal mask", &c.causal);
  }
  help_marker("Query i only sees keys j <= i (as in a decoder). Masked cells are exactly 0.");
  bool windowed = c.window >= 0;
  ImGui::BeginDisabled(control_locked(state, LessonControl::window));
  if (ImGui::Checkbox("sliding window", &windowed)) c.window = windowed ? state.model.window_size : -1;
  if (windowed) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(std::max(width - ImGui::GetCursorPosX(), 60.0f));
    if (ImGui::SliderInt("##window", &state.model.window_size, 0, 16, "W = %d")) c.window = state.model.window_size;
  }
  ImGui::EndDisabled();
  ImGui::BeginDisabled(control_locked(state, LessonControl::temperature));
  ImGui::SetNextItemWidth(width * 0.55f);
  ImGui::SliderFloat("temperature", &c.temperature, 0.05f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
  help_marker("Scores are divided by the temperature before the softmax: low = sharp, high = flat.");
  ImGui::EndDisabled();
  int seed = int(state.request.seed);
  ImGui::SetNextItemWidth(width * 0.55f);
  LockScope lock(state, LessonControl::seed);
  if (ImGui::InputInt("seed", &seed)) state.request.seed = uint64_t(std::max(seed, 0));
}

}  // namespace

void draw_model(AppState& state, const UiContext& ui) {
  section_title(ui.fonts.heading, "Model");
  // Source switch, Open box, recent models; for a checkpoint also its shape and controls.
  draw_open_model(state, ui);
  if (!state.request.attention_file.empty()) {  // maps made elsewhere: nothing here shapes them
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("Maps from %s: every view, export and analysis reads them; what needs weights "
                        "(next tokens, score ranks, the head-count sweep) is unavailable.",
                        state.request.attention_file.c_str());
    if (ui.derived)
      for (const std::string& note : ui.derived->run().notes) ImGui::TextDisabled("%s", note.c_str());
    ImGui::PopTextWrapPos();
    if (ui.derived) draw_layer_control(state, ui.derived->run().n_layers());
    return;
  }
  const bool synthetic = state.request.model_path.empty() && state.request.weights.empty() && !state.open_model.checkpoint;
  if (!synthetic) return;
  const AttentionConfig& c = state.request.attention;
  draw_shape(state);
  ImGui::Spacing();

  // Always visible: the numbers the lesson is about; none for a shape the model cannot have (the
  // status line says why), never numbers of an impossible one ("head width 0").
  std::string impossible;
  try {
    c.validate();
  } catch (const InputError& e) {
    impossible = e.what();
  }
  const float half = ImGui::GetContentRegionAvail().x * 0.5f;
  big_number(ui, "head width", impossible.empty() ? std::to_string(c.head_width()) : kNone,
             "d_head: dimensions each head's queries and keys live in");
  ImGui::SameLine(half);
  big_number(ui, "parameters", impossible.empty() ? format_count(attention_param_count(c)) : kNone,
             "Learned numbers in Q, K, V and output weights and biases: 4 d^2 + 4 d. Splitting d_model into "
             "more heads does not change it.");
  ImGui::PushTextWrapPos(0);
  if (!impossible.empty())
    ImGui::TextColored(tone(Tone::warning), "no numbers for this shape: %s", impossible.c_str());
  else if (!c.decoupled_width() && c.kv_heads() == c.n_heads)
    ImGui::TextDisabled("4 d\xC2\xB2 + 4 d, the same for every head count");
  else if (c.kv_heads() < c.n_heads)
    ImGui::TextDisabled("fewer key/value heads: smaller K and V projections");
  ImGui::PopTextWrapPos();
  ImGui::Separator();
  draw_groups(state, impossible.empty());
  ImGui::Separator();
  draw_mask_and_seed(state);
}

}  // namespace hs::gui
