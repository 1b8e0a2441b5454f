#include "app/gui/panels/contrast_patching.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/work/patching_job.h"
#include "core/render/patching_figure.h"
#include "core/util/format.h"

namespace hs::gui {
namespace {

const char* const kShareHelp =
    "Activation patching: sentence B's run with this head's output (attention @ v, before the output projection) "
    "replaced by sentence A's at the aligned positions. Share = (LD patched \xE2\x88\x92 LD B) / (LD A \xE2\x88\x92 LD B), "
    "LD = logit(target) \xE2\x88\x92 logit(versus) after the last token: 1 = the head alone carries A's difference, "
    "0 = none of it, negative = it works against it.";

PairQuestion question_of(const AppState& state) { return {state.contrast.target, state.contrast.versus, true}; }

// "label [box]" on the current line, the box a continuation's text.
void continuation_box(const char* label, const char* id, const char* hint, const char* tip, std::string& text) {
  ImGui::TextDisabled("%s", label);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  ImGui::InputTextWithHint(id, hint, &text);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
}

void continuation_boxes(AppState& state) {
  ImGui::AlignTextToFramePadding();
  continuation_box("logit difference of", "##target", "\" are\"", "A continuation of both sentences (start it with a space: \" are\").",
                   state.contrast.target);
  ImGui::SameLine();
  continuation_box("versus", "##versus", "\" is\"", "The continuation it is compared with (\" is\").", state.contrast.versus);
}

void run_button(AppState& state, const UiContext& ui, const std::string& why) {
  const PatchingStatus& st = ui.patching;
  const float f = ImGui::GetFontSize();
  ImGui::SameLine(0, f);
  if (st.running) {
    const float frac = st.total > 0 ? float(st.done) / float(st.total) : 0.0f;
    ImGui::ProgressBar(frac, ImVec2(f * 12, 0), st.total > 0 ? format("%d / %d heads", st.done, st.total).c_str() : "clean runs...");
    ImGui::SameLine();
    if (ImGui::Button("Cancel##patching")) state.commands.push(CancelPatching{});
    return;
  }
  const int passes = ui.derived->run().n_layers() * ui.derived->run().n_heads();
  ImGui::BeginDisabled(!why.empty());
  if (ImGui::Button(format("Run patching (%d passes)", passes + 2).c_str())) state.commands.push(RunPatching{});
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", why.empty() ? kShareHelp : why.c_str());
}

void logit_differences(const PairAnswer& p) {
  const std::string text = format("logit(%s) \xE2\x88\x92 logit(%s):  A %.3f   B %.3f", display_token(p.target_token).c_str(),
                                  display_token(p.versus_token).c_str(), p.logit_diff_a, p.logit_diff_b);
  same_line_if_fits(text_width(text.c_str()), ImGui::GetFontSize() * 1.5f);
  ImGui::TextUnformatted(text.c_str());
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("After each sentence's last token, how much more the model favours the target than the versus\n"
                      "(logits; positive: the target). The gap LD A \xE2\x88\x92 LD B is what patching restores.");
  for (const std::string& note : p.notes) wrapped_hint(note.c_str());
}

bool for_screen(const AppState& state, const UiContext& ui) {
  return patching_matches(ui.patching, state.request, state.contrast.sentence, question_of(state));
}

}  // namespace

const PairAnswer* shown_patching(const AppState& state, const UiContext& ui) {
  return for_screen(state, ui) ? ui.patching.result.get() : nullptr;
}

void draw_patching_controls(AppState& state, const UiContext& ui) {
  const RunAnalysis& a = *ui.derived->analysis;
  if (a.run.next_tokens.empty() || !a.request.attention_file.empty()) return;  // no language model: nothing to patch
  const ContrastRun* c = ui.derived->contrast.get();
  const std::string why = patching_unavailable(*ui.derived->analysis, c, question_of(state));
  continuation_boxes(state);
  run_button(state, ui, why);
  if (const PairAnswer* p = shown_patching(state, ui)) logit_differences(*p);
  else if (!ui.patching.running && !ui.patching.error.empty() && for_screen(state, ui))
    ImGui::TextColored(tone(Tone::error), "Patching: %s", ui.patching.error.c_str());
}

float patching_grid_width(int layers, int heads, float height) {
  return height * float(heads) / float(std::max(layers, 1)) + ImGui::GetFontSize() * 6;
}

void draw_patching_grid(AppState& state, const UiContext& ui, const PairAnswer& answer, ImVec2 size) {
  const HeadPatching& p = *answer.patching;
  std::vector<std::string> rows, cols;
  for (int l = 0; l < p.n_layers(); ++l) rows.push_back(format("L%d", l));
  for (int h = 0; h < p.n_heads(); ++h) cols.push_back(format("h%d", h));
  const Map shown = p.share.unaryExpr([](float v) { return std::isnan(v) ? 0.0f : v; });  // null: blank (white)
  const ScaleRange range = scale_range(ColourScale{ScaleMode::linear, false, kPatchingColormap}, patching_range(p.share));
  HeatmapSpec spec = heatmap_spec("contrast patching", map_version(ui.patching.serial), plain_map(shown), range, kPatchingColormap);
  spec.row_labels = &rows;
  spec.col_labels = &cols;
  spec.highlight_row = state.layer, spec.highlight_col = state.head;
  ImGui::BeginGroup();  // the title over the map and its bar
  ImGui::TextDisabled("patching: share");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", kShareHelp);
  const float title_h = ImGui::GetTextLineHeightWithSpacing();
  ImGui::BeginGroup();
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(size.x - colour_bar_width(), size.y - title_h));
  ImGui::EndGroup();
  ImGui::SameLine();
  draw_colour_bar(ui, range, kPatchingColormap, ImVec2(colour_bar_width(), size.y - title_h));
  ImGui::EndGroup();
  if (hit.hovered && hit.row >= 0 && hit.row < p.n_layers() && hit.col < p.n_heads()) {
    const float share = p.share(hit.row, hit.col);
    const std::string value = std::isnan(share) ? std::string(p.gap_too_small ? "null (no gap)" : "not run") : format("%.3f", double(share));
    ImGui::SetTooltip("L%d h%d: share %s (LD patched %.3f)\n(click: show this head)", hit.row, hit.col, value.c_str(),
                      double(p.logit_diff(hit.row, hit.col)));
    if (hit.clicked) state.layer = hit.row, state.head = hit.col;
  }
}

}  // namespace hs::gui
