// The sentence box at the top: typing recomputes live; an Examples menu; the tokens as chips.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/theme.h"
#include "core/model/hf_loaders.h"

namespace hs::gui {
namespace {

// Presenting, the chips wrap onto at most this many lines (the rest are counted, not cut).
constexpr int kPresentChipLines = 3;
constexpr float kChipGap = 4;  // between chips, across and down
// Presenting, a chip's text keeps this much room above and below: ImGui's SmallButton (no
// padding) clips the text to its box, which cuts the descenders of 'g' and 'y'.
// Across, a narrow padding (a fifth of the font) keeps a typical sentence on one line or two.
constexpr float kChipPadY = 2;
ImVec2 present_chip_padding() { return ImVec2(std::round(ImGui::GetFontSize() * 0.2f), kChipPadY); }

std::string chips_label(const AttentionRun& run) {
  const int generated = run.prompt_tokens > 0 ? run.n_tokens() - run.prompt_tokens : 0;
  return generated > 0 ? format("%d + %d generated tokens", run.prompt_tokens, generated) : format("%d tokens", run.n_tokens());
}

std::string chip_text(const AttentionRun& run, size_t i) { return abbreviate(display_token(run.tokens, i), 16); }

// A chip's width presenting: its text in a small button, and the "|" where sentence B begins.
float chip_width(const AttentionRun& run, size_t i) {
  const float w = ImGui::CalcTextSize(chip_text(run, i).c_str()).x + present_chip_padding().x * 2;
  return int(i) == run.segment_b_start ? w + ImGui::CalcTextSize("|").x + kChipGap : w;
}

std::string more_chips_text(int more) { return format("+%d more", more); }

// Presenting: the chips wrapped into `width`, line by line, up to kPresentChipLines; when they do
// not all fit, the last line ends in "+N more" instead.
struct ChipLines {
  int lines = 1;
  int shown = 0;  // chips drawn, from the first
};
ChipLines wrap_chips(const AttentionRun& run, float width) {
  const auto fill = [&](float reserve) {
    ChipLines out;
    float x = 0;
    for (size_t i = 0; i < run.tokens.size(); ++i) {
      const float w = chip_width(run, i);
      const float room = out.lines == kPresentChipLines ? width - reserve : width;
      if (x > 0 && x + w > room) {
        if (out.lines == kPresentChipLines) return out;
        ++out.lines, x = 0;
      }
      x += w + kChipGap;
      out.shown = int(i) + 1;
    }
    return out;
  };
  const ChipLines all = fill(0);
  if (all.shown == int(run.tokens.size())) return all;
  const float more_w = ImGui::CalcTextSize(more_chips_text(int(run.tokens.size())).c_str()).x + kChipGap;
  return fill(more_w);
}

// The chips' box: one line that scrolls sideways, or presenting, the wrapped lines.
float chips_height(const AttentionRun* run, bool present, float width) {
  if (!present || !run) return ImGui::GetFrameHeight() * 0.8f + ImGui::GetStyle().ScrollbarSize + 4;
  const float lines = float(wrap_chips(*run, width).lines);
  return lines * (ImGui::GetTextLineHeight() + kChipPadY * 2) + (lines - 1) * kChipGap;
}

// The chips' box width when it follows the label on the sentence window's second line.
float chips_width(const AttentionRun& run, float line_width) {
  return line_width - ImGui::CalcTextSize(chips_label(run).c_str()).x - ImGui::GetStyle().ItemSpacing.x;
}

// What every chip shows besides its token: the queries on screen, a minimal pair's tokens that
// sentence B does not share (a_to_b < 0), the query and key a map's pointer is on.
struct ChipMarks {
  std::vector<int> shown;
  const std::vector<int>* a_to_b = nullptr;
  int hovered_query = -1, hovered_key = -1;
};

// One chip at the cursor ("|" before it where sentence B begins); a click makes it the query.
void draw_chip(AppState& state, const AttentionRun& run, size_t i, const ChipMarks& marks) {
  const auto& tokens = run.tokens;
  if (int(i) == run.segment_b_start) {  // where sentence B begins
    ImGui::TextDisabled("|");
    ImGui::SameLine(0, kChipGap);
  }
  const bool selected = std::find(marks.shown.begin(), marks.shown.end(), int(i)) != marks.shown.end();
  const bool gen = is_generated(run, int(i)), special = run.is_special(int(i));
  const bool changed = marks.a_to_b && (*marks.a_to_b)[i] < 0;
  if (selected) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
  if (gen) ImGui::PushStyleColor(ImGuiCol_Text, generated_colour_vec());
  else if (changed) ImGui::PushStyleColor(ImGuiCol_Text, tone(Tone::warning));
  else if (special) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  if (ImGui::Button((chip_text(run, i) + "##chip" + std::to_string(i)).c_str())) state.query.queries = {int(i)};
  if (gen || changed || special) ImGui::PopStyleColor();
  if (selected) ImGui::PopStyleColor();
  if (int(i) == marks.hovered_query || int(i) == marks.hovered_key)  // the query (solid) or key (thinner) under the pointer in a map
    ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), accent_colour(), 3.0f, 0,
                                        int(i) == marks.hovered_query ? 2.0f : 1.0f);
  if (ImGui::IsItemHovered()) {
    const std::string next = next_token_note(run, int(i)), bytes = token_bytes_hint(tokens, i);
    ImGui::SetTooltip("token %d: \"%s\"%s%s%s%s%s%s\n(click: make it the query)", int(i), tokens[i].c_str(),
                      changed ? "\nnot in the compared sentence (replaced or only here)" : "",
                      bytes.empty() ? "" : ("\n" + bytes).c_str(), gen ? "  (generated)" : "", special ? "  (special token)" : "",
                      run.segment_b_start >= 0 ? (int(i) >= run.segment_b_start ? "  sentence B" : "  sentence A") : "",
                      next.empty() ? "" : ("\n" + next).c_str());
  }
}

// Presenting: every chip that fits on kPresentChipLines lines, wrapped, nothing cut or scrolled.
void draw_wrapped_chips(AppState& state, const AttentionRun& run, const ChipMarks& marks, float width) {
  const ChipLines fit = wrap_chips(run, width);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float line_h = ImGui::GetTextLineHeight() + kChipPadY * 2 + kChipGap;
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, present_chip_padding());
  float x = 0, y = 0;
  for (int i = 0; i < fit.shown; ++i) {
    const float w = chip_width(run, size_t(i));
    if (x > 0 && x + w > width) x = 0, y += line_h;
    ImGui::SetCursorScreenPos(ImVec2(origin.x + x, origin.y + y));
    x += w + kChipGap;
    draw_chip(state, run, size_t(i), marks);
  }
  ImGui::PopStyleVar();
  if (fit.shown < run.n_tokens()) {
    ImGui::SetCursorScreenPos(ImVec2(origin.x + x, origin.y + y + kChipPadY));
    ImGui::TextDisabled("%s", more_chips_text(run.n_tokens() - fit.shown).c_str());
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Presenting shows the tokens that fit on %d lines; leave presenting (Esc) to scroll through all %d.",
                                                  kPresentChipLines, run.n_tokens());
  }
}

void draw_token_chips(AppState& state, const UiContext& ui) {
  if (!ui.derived) return;
  const AttentionRun& run = ui.derived->run();
  const auto& tokens = run.tokens;
  const int generated = run.prompt_tokens > 0 ? run.n_tokens() - run.prompt_tokens : 0;
  ImGui::TextDisabled("%s", chips_label(run).c_str());
  if (!run.token_ids.empty() && ImGui::IsItemHovered())
    ImGui::SetTooltip("Sub-word tokens as the model sees them: \xC2\xB7 marks a space (View menu: or nothing), \xE2\x90\xA3 a "
                      "token that is only a space, "
                      "\xE2\x80\xA6 a byte that starts a character the next token completes, U+1F600 a character "
                      "the font cannot draw. Hover a chip for its bytes.%s",
                      generated > 0 ? "\nBlue chips are tokens the model generated." : "");
  ChipMarks marks;
  marks.hovered_query = state.sentence.hovered_query, marks.hovered_key = state.sentence.hovered_key;
  state.sentence.hovered_query = state.sentence.hovered_key = -1;  // the views set them again this frame
  marks.shown = shown_queries(state, int(tokens.size()));
  const ContrastRun* pair = ui.derived->contrast.get();
  if (pair && pair->analysis && !pair->is_models() && pair->sentence == state.contrast.sentence && pair->result.alignment.a_to_b.size() == tokens.size())
    marks.a_to_b = &pair->result.alignment.a_to_b;
  ImGui::SameLine();
  if (state.present.active) {  // wrapped onto lines: nothing cut at the window's edge, nothing to scroll
    const float width = ImGui::GetContentRegionAvail().x;
    ImGui::BeginChild("##chips lines", ImVec2(width, chips_height(&run, true, width)), false, ImGuiWindowFlags_NoScrollbar);
    draw_wrapped_chips(state, run, marks, width);
    ImGui::EndChild();
    return;
  }
  // One row that scrolls sideways (wheel or scroll bar); only the chips in view are drawn, so a
  // long text costs nothing. The token a map hovers is shown (scrolled to and outlined).
  ImGui::BeginChild("##chips", ImVec2(0, chips_height(&run, false, 0)), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (ImGui::IsWindowHovered() && ImGui::GetIO().MouseWheel != 0.0f)  // the wheel scrolls sideways here
    ImGui::SetScrollX(ImGui::GetScrollX() - ImGui::GetIO().MouseWheel * ImGui::GetFontSize() * 4);
  ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(kChipGap, kChipGap));
  ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(ImGui::GetStyle().FramePadding.x, 0));  // as SmallButton
  const float view_x0 = ImGui::GetScrollX(), view_x1 = view_x0 + ImGui::GetWindowWidth();
  const float pad_x = ImGui::GetStyle().FramePadding.x;
  float x = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const float w = ImGui::CalcTextSize(chip_text(run, i).c_str()).x + pad_x * 2 + (int(i) == run.segment_b_start ? 12 : 0);
    if (i > 0) ImGui::SameLine();
    const bool hot = int(i) == marks.hovered_query || int(i) == marks.hovered_key;
    if (hot && (x < view_x0 || x + w > view_x1)) ImGui::SetScrollX(std::max(0.0f, x - (view_x1 - view_x0) * 0.4f));
    const bool off_screen = x + w < view_x0 - 200 || x > view_x1 + 200;
    x += w + kChipGap;
    if (off_screen) {  // room only
      ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
      continue;
    }
    draw_chip(state, run, i, marks);
  }
  ImGui::PopStyleVar(2);
  ImGui::EndChild();
}

}  // namespace

// One line for each note the run makes about its input (a text cut to the model's context, words
// read as <unk>), drawn under the chips.
float sentence_notes_height(const AppState& state, const UiContext& ui) {
  if (!ui.derived || !state.request.attention_file.empty()) return 0.0f;
  return float(ui.derived->run().notes.size()) * (ImGui::GetTextLineHeight() + ImGui::GetStyle().ItemSpacing.y);
}

float sentence_bar_height(const AppState& state, const UiContext& ui, float width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const float title_f = ui.fonts.title ? ui.fonts.title->FontSize : ImGui::GetFontSize();
  const float around = title_f + style.FramePadding.y * 2 + style.ItemSpacing.y + style.WindowPadding.y * 2 + 4 +
                       sentence_notes_height(state, ui);
  if (!state.present.active || !ui.derived)  // one line of chips that scrolls sideways
    return around + ImGui::GetFontSize() + style.ScrollbarSize;
  const AttentionRun& run = ui.derived->run();
  return around + chips_height(&run, true, chips_width(run, width - style.WindowPadding.x * 2));
}

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
  // Presenting a lesson, the sentence box takes the export buttons' room (Ctrl+E still opens
  // the export dialog): the class reads the sentence it types.
  const bool export_buttons = !(state.present.active && state.lesson.lesson);
  const float examples_w = export_buttons ? ImGui::CalcTextSize("ExamplesExport...Copy data").x + ImGui::GetStyle().FramePadding.x * 6 +
                                                ImGui::GetStyle().ItemSpacing.x * 2 + 4
                                          : ImGui::CalcTextSize("Examples").x + ImGui::GetStyle().FramePadding.x * 2 + 4;
  const float boxes_w = ImGui::GetContentRegionAvail().x - examples_w - ImGui::GetStyle().ItemSpacing.x;
  // A minimal pair (the Contrast view): a "compare with" box for sentence B of any other model.
  const bool contrast = !pair && !npy_input && !file_maps && (state.view == View::contrast || !state.contrast.sentence.empty() ||
                                                                          !state.contrast.model_b.empty());
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
    ImGui::InputTextWithHint("##sentence", state.present.active ? "type a sentence" : "type a sentence (Ctrl+L)", &state.request.sentence);
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
    if (!state.contrast.model_b.empty()) {  // two models: B is the same sentence through model B
      std::string shown = "model B: " + model_display_name(state.contrast.model_b);
      ImGui::BeginDisabled();
      ImGui::InputText("##contrast model", &shown, ImGuiInputTextFlags_ReadOnly);
      ImGui::EndDisabled();
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("Two models: this sentence through %s too (Model panel: Compare with model...).",
                          state.contrast.model_b.c_str());
    } else {
      ImGui::InputTextWithHint("##contrast", "sentence B: change a word", &state.contrast.sentence);
    }
    if (ImGui::IsItemHovered() && state.contrast.model_b.empty())
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
  if (export_buttons) {
    ImGui::SameLine();
    draw_export(state, ui);
  }
  draw_token_chips(state, ui);
  // What the run says about its input (a text cut to the model's context); maps from a file say
  // theirs in the model panel.
  if (ui.derived && state.request.attention_file.empty())
    for (const std::string& note : ui.derived->run().notes)
      ImGui::TextColored(tone(Tone::warning), "\xE2\x9A\xA0 %s", note.c_str());
}

}  // namespace hs::gui
