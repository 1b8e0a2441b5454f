// The model source (synthetic or a checkpoint file / Hugging Face folder), the Open box, recent
// models, and for a loaded checkpoint: its shape, a layer selector and "continue N tokens".
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/model_rules.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/model_sentence.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/widgets/theme.h"
#include "core/model/shipped_models.h"
#include "core/model/teaching_model.h"
#include "core/util/format.h"

namespace hs::gui {
namespace {

// The boxes follow the request when something else changed the model (--model, a dropped file,
// a session or lesson).
void sync_boxes(AppState& state) {
  OpenModelState& m = state.open_model;
  const std::string& path = state.request.model_path;
  if (path == m.seen_path) return;
  m.seen_path = path;
  if (path.empty()) {
    m.checkpoint = false;
    return;
  }
  m.checkpoint = true;
  m.path = path;
  m.tokenizer = state.request.tokenizer;
  m.tokenizer_auto = false;
}

void use_synthetic(AppState& state) {
  ModelRequest& r = state.request;
  r.model_path.clear(), r.tokenizer.clear();
  r.generate = 0;
  clear_model_inputs(r);
  r.sentence = r.sentence.empty() ? default_app_state().request.sentence : sentence_for_model(r.sentence, "");  // the user's own text stays
  state.open_model.checkpoint = false;
  state.open_model.seen_path.clear();
  state.open_model.error.clear();
}

void source_switch(AppState& state) {
  OpenModelState& m = state.open_model;
  const bool external = m.checkpoint || !state.request.model_path.empty() || !state.request.weights.empty();
  if (ImGui::RadioButton("synthetic", !external)) use_synthetic(state);
  ImGui::SameLine();
  if (ImGui::RadioButton("checkpoint", external) && !external) {
    m.checkpoint = true;
    if (m.path.empty() && !m.recent.empty()) m.path = m.recent.front().path, m.tokenizer = m.recent.front().tokenizer;
  }
  ImGui::SameLine();
  help_marker("synthetic: one random attention layer whose shape you choose.\ncheckpoint: a trained model from disk, "
              "a llama2.c .bin (with its tokenizer.bin) or a Hugging Face folder (config.json, model.safetensors, "
              "tokenizer files) of model_type gpt2 or llama.");
}

// The models that come with headscope, one click each: the hand-wired teaching model and
// stories260K (core/model/shipped_models.h), opened by name like any checkpoint.
void shipped_buttons(AppState& state) {
  OpenModelState& m = state.open_model;
  ImGui::TextDisabled("open:");
  for (const ShippedModel& s : shipped_models()) {
    const bool current = state.request.model_path == s.name;
    const std::string label = s.name + (s.name == "teaching" ? " (built in)" : " (shipped)");
    // On the same line while it fits, else on the next.
    const float w = ImGui::CalcTextSize(label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine();
    if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
    if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    // A full-height button: a small button's frame (no vertical padding) cut the descenders of "g" and "pp".
    if (ImGui::Button(label.c_str()) && !current) {
      m.path = s.name, m.tokenizer.clear(), m.tokenizer_auto = false;
      open_model_from_boxes(state);
    }
    if (current) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.description.c_str());
  }
}

void open_box(AppState& state) {
  OpenModelState& m = state.open_model;
  const float width = ImGui::GetContentRegionAvail().x;
  ImGui::SetNextItemWidth(width);
  if (ImGui::InputTextWithHint("##model path", "llama2.c .bin or Hugging Face folder", &m.path) &&
      (m.tokenizer.empty() || m.tokenizer_auto)) {
    m.tokenizer = tokenizer_beside(m.path);  // tok512.bin / tokenizer.bin next to a .bin
    m.tokenizer_auto = !m.tokenizer.empty();
  }
  ImGui::SetNextItemWidth(width);
  if (ImGui::InputTextWithHint("##tokenizer path", "tokenizer (llama2.c; optional)", &m.tokenizer)) m.tokenizer_auto = false;
  if (ImGui::Button("Open")) open_model_from_boxes(state);
  if (!m.tokenizer.empty() && m.tokenizer_auto) {
    ImGui::SameLine();
    ImGui::TextDisabled("tokenizer found beside the checkpoint");
  }
  if (!m.error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, tone(Tone::error));
    ImGui::TextWrapped("could not open: %s", m.error.c_str());
    ImGui::PopStyleColor();
  }
  if (m.recent.empty()) return;
  if (!ImGui::TreeNodeEx("recent models", ImGuiTreeNodeFlags_DefaultOpen)) return;
  for (size_t i = 0; i < m.recent.size(); ++i) {
    const RecentModel& r = m.recent[i];
    const bool current = r.path == state.request.model_path;
    const std::string label = model_display_name(r.path) + "##recent" + std::to_string(i);
    if (ImGui::Selectable(label.c_str(), current)) {
      m.path = r.path, m.tokenizer = r.tokenizer, m.tokenizer_auto = false;
      open_model_from_boxes(state);
    }
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("%s%s%s", r.path.c_str(), r.tokenizer.empty() ? "" : "\ntokenizer ", r.tokenizer.c_str());
  }
  ImGui::TreePop();
}

void info_row(const char* name, const std::string& value, const char* help = nullptr) {
  ImGui::TableNextRow();
  ImGui::TableNextColumn();
  ImGui::TextDisabled("%s", name);
  if (help && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", help);
  ImGui::TableNextColumn();
  ImGui::TextWrapped("%s", value.c_str());  // a narrow sidebar (1280x720) wraps "6,010,466 parameters" rather than cutting it
}

void model_info(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const ModelInfo& info = d.run().info;
  if (ui.fonts.heading) ImGui::PushFont(ui.fonts.heading);
  ImGui::TextWrapped("%s", info.name.c_str());
  if (ui.fonts.heading) ImGui::PopFont();
  // The layer first: the views show one layer at a time, and this is its only control.
  draw_layer_control(state, d.run().n_layers());
  if (ImGui::BeginTable("model info", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
    info_row("layers", std::to_string(info.n_layers));
    info_row("query heads", std::to_string(info.n_heads));
    info_row("key/value heads", format("%d (%s)", info.n_kv_heads, kv_kind(info.n_kv_heads, info.n_heads)),
             "Grouped-query attention: query head h reads key/value head h / (heads / key/value heads).");
    info_row("head width", std::to_string(info.d_head), "d_head of every attention head");
    info_row("d_model", std::to_string(info.d_model));
    if (info.vocab_size > 0) info_row("vocabulary", format_count(info.vocab_size) + " tokens");
    info_row("attention parameters", format_count(info.param_count) + " per layer", "Q, K, V and output projections of one layer");
    info_row("whole model", format_count(info.total_params) + " parameters");
    if (info.kind == "teaching") info_row("why so wide", teaching_width_story(), "docs/teaching-model.md, How it is built");
    ImGui::EndTable();
  }
}

void continue_control(AppState& state, const UiContext& ui) {
  OpenModelState& m = state.open_model;
  int g = m.generate_draft >= 0 ? m.generate_draft : state.request.generate;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
  const bool changed = ImGui::SliderInt("continue", &g, 0, kMaxGenerate, g == 1 ? "%d token" : "%d tokens");
  g = std::clamp(g, 0, kMaxGenerate);
  // While dragging only the draft moves; the model runs once, when the slider is let go.
  if (ImGui::IsItemActive()) m.generate_draft = g;
  else if (ImGui::IsItemDeactivated() || changed) state.request.generate = g, m.generate_draft = -1;
  ImGui::SameLine();
  help_marker("Let the model continue the sentence greedily for this many tokens and show attention over the whole "
              "text. Generated tokens are drawn in blue.");
  if (!ui.derived) return;
  const AttentionRun& run = ui.derived->run();
  if (run.prompt_tokens > 0 && run.prompt_tokens < run.n_tokens()) {
    ImGui::TextDisabled("%d prompt + %d generated tokens", run.prompt_tokens, run.n_tokens() - run.prompt_tokens);
    ImGui::PushStyleColor(ImGuiCol_Text, generated_colour_vec());
    ImGui::TextWrapped("\xE2\x80\xA6%s", abbreviate(spelled_text(run, run.prompt_tokens, run.n_tokens()), 600).c_str());
    ImGui::PopStyleColor();
  }
}

// "Compare with model...": a second checkpoint (a file, a folder or a shipped model) that the
// Contrast view compares with this one on the same sentence. It loads off the UI thread (the
// worker); the Contrast view shows progress and Cancel, the status line a refusal.
void compare_with_model(AppState& state) {
  ContrastPanelState& c = state.contrast;
  if (!ImGui::TreeNodeEx("Compare with model...", c.model_b.empty() ? 0 : ImGuiTreeNodeFlags_DefaultOpen)) return;
  const auto compare = [&state](const std::string& path, const std::string& tokenizer) {
    state.contrast.model_b = path, state.contrast.tokenizer_b = tokenizer;
    request_view(state, View::contrast);
  };
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
  ImGui::InputTextWithHint("##model b path", "model B: a .gguf, .bin or Hugging Face folder", &c.model_b_box);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("A quantization, fine-tune or later checkpoint of this model: the Contrast view shows how far each\n"
                      "head's attention moved on the same sentence (the numbers of headscope-cli compare --model-b).");
  const std::string box = trimmed_path(c.model_b_box);
  ImGui::BeginDisabled(box.empty());
  if (ImGui::Button("Compare")) compare(box, tokenizer_beside(box));
  ImGui::EndDisabled();
  for (const ShippedModel& s : shipped_models()) {
    if (s.name == "teaching") continue;  // its own vocabulary: no checkpoint shares it
    ImGui::SameLine();
    if (ImGui::Button(format("%s##model b", s.name.c_str()).c_str())) compare(s.name, "");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Compare with %s (shipped)", s.name.c_str());
  }
  if (!c.model_b.empty()) {
    const std::string comparing = "comparing with " + model_display_name(c.model_b);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", comparing.c_str());  // a narrow sidebar wraps a long file name
    ImGui::PopStyleColor();
    same_line_if_fits(text_width("Stop") + ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::SmallButton("Stop")) c.model_b.clear(), c.tokenizer_b.clear();
  }
  ImGui::TreePop();
}

}  // namespace

void draw_open_model(AppState& state, const UiContext& ui) {
  sync_boxes(state);
  source_switch(state);
  shipped_buttons(state);
  const bool external = state.open_model.checkpoint || !state.request.model_path.empty() || !state.request.weights.empty();
  if (!external) return;
  if (!state.request.weights.empty() && state.request.model_path.empty()) {
    ImGui::TextDisabled("attention weights from %s", state.request.weights.c_str());
  }
  open_box(state);
  const bool shown = ui.derived && (!ui.derived->analysis->request.model_path.empty() || !ui.derived->analysis->request.weights.empty());
  ImGui::Separator();
  if (shown) model_info(state, ui);
  if (!state.request.model_path.empty()) continue_control(state, ui);
  if (!state.request.model_path.empty()) compare_with_model(state);
  if (!shown) ImGui::TextDisabled("%s", ui.status.computing ? "loading..." : "no checkpoint loaded yet");
}

}  // namespace hs::gui
