// The sentence box at the top: typing recomputes live; an Examples menu; the tokens as chips.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "core/model/hf_loaders.h"

namespace hs::gui {
namespace {

void draw_token_chips(AppState& state, const UiContext& ui) {
  if (!ui.derived) return;
  const AttentionRun& run = ui.derived->run();
  const auto& tokens = run.tokens;
  const int generated = run.prompt_tokens > 0 ? run.n_tokens() - run.prompt_tokens : 0;
  if (generated > 0) ImGui::TextDisabled("%d + %d generated tokens", run.prompt_tokens, generated);
  else ImGui::TextDisabled("%d tokens", int(tokens.size()));
  if (!run.token_ids.empty() && ImGui::IsItemHovered())
    ImGui::SetTooltip("Sub-word tokens as the model sees them: \xE2\x96\x81 marks a space, <0xHH> a raw byte.%s",
                      generated > 0 ? "\nBlue chips are tokens the model generated." : "");
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(4, 4));
  const float right = ImGui::GetWindowContentRegionMax().x + ImGui::GetWindowPos().x;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string label = abbreviate(display_token(tokens[i]), 16) + "##chip" + std::to_string(i);
    const float w = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
    ImGui::SameLine();
    if (ImGui::GetCursorScreenPos().x + w > right) {
      ImGui::TextDisabled("...");
      break;
    }
    const std::vector<int> shown = shown_queries(state, int(run.tokens.size()));
    const bool selected = std::find(shown.begin(), shown.end(), int(i)) != shown.end();
    const bool gen = is_generated(run, int(i));
    if (int(i) == run.segment_b_start) {  // where sentence B begins
      ImGui::TextDisabled("|");
      ImGui::SameLine();
    }
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    const bool special = run.is_special(int(i));
    if (gen) ImGui::PushStyleColor(ImGuiCol_Text, generated_colour_vec());
    else if (special) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (ImGui::SmallButton(label.c_str())) state.query.queries = {int(i)};
    if (gen || special) ImGui::PopStyleColor();
    if (selected) ImGui::PopStyleColor();
    if (ImGui::IsItemHovered()) {
      const std::string next = next_token_note(run, int(i));
      ImGui::SetTooltip("token %d: \"%s\"%s%s%s%s\n(click: make it the query)", int(i), tokens[i].c_str(),
                        gen ? "  (generated)" : "", special ? "  (special token)" : "",
                        run.segment_b_start >= 0 ? (int(i) >= run.segment_b_start ? "  sentence B" : "  sentence A") : "",
                        next.empty() ? "" : ("\n" + next).c_str());
    }
  }
  ImGui::PopStyleVar();
}

}  // namespace

void draw_sentence(AppState& state, const UiContext& ui) {
  if (ui.fonts.title) ImGui::PushFont(ui.fonts.title);
  ImGui::TextColored(ImVec4(1.0f, 0.77f, 0.25f, 1.0f), "headscope");
  if (ui.fonts.title) ImGui::PopFont();
  ImGui::SameLine();
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("sentence");
  ImGui::SameLine();
  const bool npy_input = !state.request.input_npy.empty(), file_maps = !state.request.attention_file.empty();
  // An encoder (BERT family) reads a sentence pair: a second box for sentence B.
  const bool pair = !file_maps && !npy_input &&
                    ((ui.derived && is_hf_encoder_type(ui.derived->run().info.kind)) || !state.request.sentence_b.empty());
  const float examples_w = ImGui::CalcTextSize("ExamplesExport...Copy data").x + ImGui::GetStyle().FramePadding.x * 6 +
                           ImGui::GetStyle().ItemSpacing.x * 2 + 4;
  const float boxes_w = ImGui::GetContentRegionAvail().x - examples_w - ImGui::GetStyle().ItemSpacing.x;
  const float b_label_w = ImGui::CalcTextSize("B").x + ImGui::GetStyle().ItemSpacing.x * 2;
  ImGui::SetNextItemWidth(pair ? boxes_w * 0.6f - b_label_w : boxes_w);
  if (state.sentence.focus_requested) {
    ImGui::SetKeyboardFocusHere();
    state.sentence.focus_requested = false;
  }
  if (npy_input || file_maps) {
    std::string note = npy_input ? "input from " + state.request.input_npy + " (tokens are row numbers)"
                                 : "maps from " + state.request.attention_file + " (tokens from the file)";
    ImGui::BeginDisabled();
    ImGui::InputText("##sentence", &note, ImGuiInputTextFlags_ReadOnly);
    ImGui::EndDisabled();
  } else {
    LockScope lock(state, "sentence");
    ImGui::InputTextWithHint("##sentence", "type a sentence (Ctrl+L)", &state.request.sentence);
  }
  if (pair) {
    ImGui::SameLine();
    ImGui::TextDisabled("B");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(boxes_w * 0.4f - ImGui::GetStyle().ItemSpacing.x);
    LockScope lock(state, "sentence");
    ImGui::InputTextWithHint("##sentence_b", "second sentence (optional)", &state.request.sentence_b);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Sentence B of a pair: the model reads [CLS] A [SEP] B [SEP] (RoBERTa: <s> A </s></s> B </s>),\n"
                        "B with token type 1. A white line in the maps marks where B begins.");
  }
  ImGui::SameLine();
  if (ImGui::Button("Examples")) ImGui::OpenPopup("examples");
  if (ImGui::BeginPopup("examples")) {
    if (ui.examples)
      for (const std::string& s : *ui.examples)
        if (ImGui::Selectable(s.c_str(), s == state.request.sentence)) {
          state.request.sentence = s;
          state.request.input_npy.clear();
        }
    ImGui::EndPopup();
  }
  ImGui::SameLine();
  draw_export(state, ui);
  draw_token_chips(state, ui);
  // What the run says about its input (a text cut to the model's context); maps from a file say
  // theirs in the model panel.
  if (ui.derived && state.request.attention_file.empty())
    for (const std::string& note : ui.derived->run().notes)
      ImGui::TextColored(ImVec4(1.0f, 0.77f, 0.25f, 1.0f), "\xE2\x9A\xA0 %s", note.c_str());
}

}  // namespace hs::gui
