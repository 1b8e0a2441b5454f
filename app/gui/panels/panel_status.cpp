// The status line: last error (the previous good result stays on screen), a spinner while a
// model loads, computing, an unsaved-changes marker, frame time.
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/open_model.h"
#include "app/gui/widgets/spinner.h"
#include "app/gui/panels/panels.h"
#include "app/gui/actions/unsaved_guard.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/work/exact_head_job.h"

namespace hs::gui {
namespace {

// Model B's comparison on screen, when it answers what the state asks (null otherwise).
const ContrastRun* shown_model_pair(const AppState& state, const UiContext& ui) {
  if (state.contrast.model_b.empty() || !ui.derived || !ui.derived->contrast) return nullptr;
  const ContrastRun* c = ui.derived->contrast.get();
  return c->answers(contrast_ask(state)) ? c : nullptr;
}

}  // namespace

void draw_status(AppState& state, const UiContext& ui) {
  if (const std::string loading = model_being_loaded(state, ui); !loading.empty()) {
    draw_spinner(ImGui::GetFontSize() * 0.4f);
    ImGui::SameLine();
    ImGui::TextDisabled("loading %s\xE2\x80\xA6", loading.c_str());
    if (!state.contrast.model_b.empty() && ui.status.work_total > 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("comparing with model B: %d of %d steps (models read, layers run)", ui.status.work_done, ui.status.work_total);
    }
  } else if (!state.contrast.model_b.empty() && ui.status.computing && !shown_model_pair(state, ui)) {
    draw_spinner(ImGui::GetFontSize() * 0.4f);
    ImGui::SameLine();
    ImGui::TextDisabled("comparing with model B (%s)\xE2\x80\xA6", model_display_name(state.contrast.model_b).c_str());
    if (ui.status.work_total > 0) {
      ImGui::SameLine();
      ImGui::TextDisabled("%d of %d steps (models read, layers run)", ui.status.work_done, ui.status.work_total);
    }
  } else if (!ui.exact_head.refused.empty()) {
    ImGui::TextColored(tone(Tone::warning), "\xE2\x9A\xA0 exact map refused: %s", ui.exact_head.refused.c_str());
  } else if (!ui.status.error.empty()) {
    ImGui::TextColored(tone(Tone::error), "\xE2\x9A\xA0 %s", ui.status.error.c_str());
    if (ui.derived) {
      ImGui::SameLine();
      ImGui::TextDisabled("(showing the last good result)");
    }
  } else if (!state.selection_note.text.empty()) {
    ImGui::TextColored(tone(Tone::warning), "\xE2\x9A\xA0 %s", state.selection_note.text.c_str());
  } else if (const ContrastRun* pair = shown_model_pair(state, ui); pair && pair->analysis && pair->models.same_file) {
    ImGui::TextColored(tone(Tone::warning), "identical: change 0 everywhere (model B is the same file as model A)");
  } else if (ui.status.computing) {
    ImGui::TextDisabled("computing...");
  } else if (!ui.status.last_export.empty()) {
    if (ui.status.export_failed) ImGui::TextColored(tone(Tone::error), "%s", ui.status.last_export.c_str());
    else ImGui::TextColored(tone(Tone::success), "%s", ui.status.last_export.c_str());
  } else if (lesson_problems_shown(state)) {
    ImGui::TextColored(tone(Tone::warning), "\xE2\x9A\xA0 %s", lesson_problems_summary(state).c_str());
  } else if (ui.derived) {
    const ModelInfo& info = ui.derived->run().info;
    ImGui::TextDisabled("%s  \xC2\xB7  %d tokens  \xC2\xB7  %d layer%s x %d heads  \xC2\xB7  computed in %.1f ms",
                        info.name.c_str(), ui.derived->run().n_tokens(), info.n_layers, info.n_layers == 1 ? "" : "s",
                        info.n_heads, ui.derived->analysis->compute_ms);
  }
  // "•" while the session has changes that are not saved (unsaved_guard.h).
  // "ms / frame" is a developer readout, off unless the setting is on (imgui.ini: show_frame_time=1).
  // The memory in use against the budget (View > Memory budget), in long-input mode or near the budget.
  const double budget = double(memory_budget_bytes(state)), used = double(ui.status.resident_bytes);
  const bool long_input = ui.derived && ui.derived->run().compact();
  const std::string memory = long_input || used > 0.5 * budget
                                 ? format("memory %s of %s   ", memory_text(used).c_str(), memory_text(budget).c_str())
                                 : std::string();
  const std::string frame = format("%s%s%s", session_dirty(state) ? "\xE2\x80\xA2 unsaved changes   " : "", memory.c_str(),
                                   state.show_frame_time ? format("%.1f ms / frame", ui.status.frame_ms).c_str() : "");
  if (frame.empty()) return;
  ImGui::SameLine(ImGui::GetWindowWidth() - ImGui::CalcTextSize(frame.c_str()).x - ImGui::GetStyle().WindowPadding.x);
  ImGui::TextDisabled("%s", frame.c_str());
}

}  // namespace hs::gui
