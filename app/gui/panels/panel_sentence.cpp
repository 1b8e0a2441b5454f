// The sentence box at the top: typing recomputes live; an Examples menu; the tokens as chips.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
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
    ImGui::SetTooltip("Sub-word tokens as the model sees them: \xC2\xB7 marks a space (View menu: or nothing), \xE2\x90\xA3 a "
                      "token that is only a space, "
                      "\xE2\x80\xA6 a byte that starts a character the next token completes, U+1F600 a character "
                      "the font cannot draw. Hover a chip for its bytes.%s",
                      generated > 0 ? "\nBlue chips are tokens the model generated." : "");
  // One row that scrolls sideways (wheel or scroll bar); only the chips in view are drawn, so a
  // long text costs nothing. The token a map hovers is shown (scrolled to and outlined).
  const int hovered_query = state.sentence.hovered_query, hovered_key = state.sentence.hovered_key;
  state.sentence.hovered_query = state.sentence.hovered_key = -1;  // the views set them again this frame
  const float chip_h = ImGui::GetFrameHeight() * 0.8f + ImGui::GetStyle().ScrollbarSize + 4;
  ImGui::SameLine();
  ImGui::BeginChild("##chips", ImVec2(0, chip_h), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (ImGui::IsWindowHovered() && ImGui::GetIO().MouseWheel != 0.0f)  // the wheel scrolls sideways here
    ImGui::SetScrollX(ImGui::GetScrollX() - ImGui::GetIO().MouseWheel * ImGui::GetFontSize() * 4);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(4, 4));
  const float view_x0 = ImGui::GetScrollX(), view_x1 = view_x0 + ImGui::GetWindowWidth();
  const std::vector<int> shown = shown_queries(state, int(run.tokens.size()));
  // A minimal pair on screen: the tokens sentence B does not share are marked (a_to_b < 0).
  const ContrastRun* pair = ui.derived->contrast.get();
  const std::vector<int>* a_to_b = pair && pair->analysis && pair->sentence == state.contrast.sentence &&
                                            pair->result.alignment.a_to_b.size() == tokens.size()
                                        ? &pair->result.alignment.a_to_b
                                        : nullptr;
  const ImVec2 pad = ImGui::GetStyle().FramePadding;
  float x = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string text = abbreviate(display_token(tokens, i), 16);
    const float w = ImGui::CalcTextSize(text.c_str()).x + pad.x * 2 + (int(i) == run.segment_b_start ? 12 : 0);
    if (i > 0) ImGui::SameLine();
    const bool hot = int(i) == hovered_query || int(i) == hovered_key;
    if (hot && (x < view_x0 || x + w > view_x1)) ImGui::SetScrollX(std::max(0.0f, x - (view_x1 - view_x0) * 0.4f));
    if (x + w < view_x0 - 200 || x > view_x1 + 200) {  // off screen: room only
      ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
      x += w + 4;
      continue;
    }
    x += w + 4;
    const std::string label = text + "##chip" + std::to_string(i);
    const bool selected = std::find(shown.begin(), shown.end(), int(i)) != shown.end();
    const bool gen = is_generated(run, int(i));
    if (int(i) == run.segment_b_start) {  // where sentence B begins
      ImGui::TextDisabled("|");
      ImGui::SameLine();
    }
    if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    const bool special = run.is_special(int(i));
    const bool changed = a_to_b && (*a_to_b)[i] < 0;
    if (gen) ImGui::PushStyleColor(ImGuiCol_Text, generated_colour_vec());
    else if (changed) ImGui::PushStyleColor(ImGuiCol_Text, tone(Tone::warning));
    else if (special) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    if (ImGui::SmallButton(label.c_str())) state.query.queries = {int(i)};
    if (gen || changed || special) ImGui::PopStyleColor();
    if (selected) ImGui::PopStyleColor();
    if (hot)  // the query (solid) or key (dashed look: thinner) under the pointer in a map
      ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), accent_colour(),
                                          3.0f, 0, int(i) == hovered_query ? 2.0f : 1.0f);
    if (ImGui::IsItemHovered()) {
      const std::string next = next_token_note(run, int(i)), bytes = token_bytes_hint(tokens, i);
      ImGui::SetTooltip("token %d: \"%s\"%s%s%s%s%s%s\n(click: make it the query)", int(i), tokens[i].c_str(),
                        changed ? "\nnot in the compared sentence (replaced or only here)" : "",
                        bytes.empty() ? "" : ("\n" + bytes).c_str(),
                        gen ? "  (generated)" : "", special ? "  (special token)" : "",
                        run.segment_b_start >= 0 ? (int(i) >= run.segment_b_start ? "  sentence B" : "  sentence A") : "",
                        next.empty() ? "" : ("\n" + next).c_str());
    }
  }
  ImGui::PopStyleVar();
  ImGui::EndChild();
}

}  // namespace

void draw_sentence(AppState& state, const UiContext& ui) {
  if (ui.fonts.title) ImGui::PushFont(ui.fonts.title);
  ImGui::TextColored(accent_text(), "headscope");
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
  // A minimal pair (the Contrast view): a "compare with" box for sentence B of any other model.
  const bool contrast = !pair && !npy_input && !file_maps && (state.view == View::contrast || !state.contrast.sentence.empty());
  const float b_label_w = ImGui::CalcTextSize(contrast ? "compare with" : "B").x + ImGui::GetStyle().ItemSpacing.x * 2;
  ImGui::SetNextItemWidth(pair || contrast ? boxes_w * 0.6f - b_label_w : boxes_w);
  // Ctrl+L (GLFW's letter keys are their ASCII codes in ImGui 1.86).
  if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed('L', false)) ImGui::SetKeyboardFocusHere();
  if (npy_input || file_maps) {
    std::string note = npy_input ? "input from " + state.request.input_npy + " (tokens are row numbers)"
                                 : "maps from " + state.request.attention_file + " (tokens from the file)";
    ImGui::BeginDisabled();
    ImGui::InputText("##sentence", &note, ImGuiInputTextFlags_ReadOnly);
    ImGui::EndDisabled();
  } else {
    LockScope lock(state, LessonControl::sentence);
    ImGui::InputTextWithHint("##sentence", "type a sentence (Ctrl+L)", &state.request.sentence);
  }
  if (pair) {
    ImGui::SameLine();
    ImGui::TextDisabled("B");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(boxes_w * 0.4f - ImGui::GetStyle().ItemSpacing.x);
    LockScope lock(state, LessonControl::sentence);
    ImGui::InputTextWithHint("##sentence_b", "second sentence (optional)", &state.request.sentence_b);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Sentence B of a pair: the model reads [CLS] A [SEP] B [SEP] (RoBERTa: <s> A </s></s> B </s>),\n"
                        "B with token type 1. A white line in the maps marks where B begins.");
  }
  if (contrast) {
    ImGui::SameLine();
    ImGui::TextDisabled("compare with");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(boxes_w * 0.4f - ImGui::GetStyle().ItemSpacing.x);
    LockScope lock(state, LessonControl::sentence);
    ImGui::InputTextWithHint("##contrast", "sentence B: change a word", &state.contrast.sentence);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("A minimal pair: the same model reads this sentence too; the Contrast view aligns the tokens and\n"
                        "shows which heads' rows moved (empty: no comparison).");
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
      ImGui::TextColored(tone(Tone::warning), "\xE2\x9A\xA0 %s", note.c_str());
}

}  // namespace hs::gui
