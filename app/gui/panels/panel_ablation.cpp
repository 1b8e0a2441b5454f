// Ablation: which heads matter for this sentence (core/analysis/head_ablation.h). A button knocks
// out every head once (zero, or its mean over the sentence) off the UI thread
// (app/gui/work/ablation_job.h), with a progress bar and Cancel; the result is a layers x heads
// heatmap of the change in the mean next-token loss (diverging colours, 0 in the middle) and, for
// the selected head, the tokens whose prediction changed most, next to that head's map. Clicking
// a cell selects the head; double-clicking opens it in the Single head view. A result made for
// another sentence, model or mode is not shown as current: the view says "stale, run again".
#include <algorithm>
#include <cmath>
#include <numeric>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/work/ablation_job.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {
namespace {

constexpr Colormap kAblationColours = Colormap::rdbu;
constexpr int kTokenRows = 12;

// [L, H] loss changes; heads not run (a cancelled job) as 0 (their tooltip says so).
Map loss_map(const HeadAblation& a) { return a.delta_loss.unaryExpr([](float v) { return std::isnan(v) ? 0.0f : v; }); }

// The largest |change| (at least a small positive number, so an all-zero result still has a range).
float largest_change(const HeadAblation& a) {
  float m = 0;
  for (Eigen::Index i = 0; i < a.delta_loss.size(); ++i)
    if (!std::isnan(a.delta_loss.data()[i])) m = std::max(m, std::abs(a.delta_loss.data()[i]));
  return std::max(m, 1e-6f);
}

// "120 / 336 heads, 14 s left" ("loading the model..." before the heads start).
std::string ablation_progress_label(const AblationStatus& st) {
  if (st.total <= 0) return "loading the model...";
  if (st.seconds_left < 0 || st.done >= st.total) return format("%d / %d heads", st.done, st.total);
  return format("%d / %d heads, %.0f s left", st.done, st.total, st.seconds_left);
}

void controls(AppState& state, const AblationStatus& st, int passes) {
  const float f = ImGui::GetFontSize();
  AblationPanelState& p = state.ablation;
  int mode = p.mean ? 1 : 0;
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("knock out each head:");
  ImGui::SameLine();
  ImGui::RadioButton("zero", &mode, 0);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The head's output (attention @ v, before the output projection) set to 0.");
  ImGui::SameLine();
  ImGui::RadioButton("mean over the sentence", &mode, 1);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("The head's output at every position replaced by its mean over the sentence's positions.");
  p.mean = mode == 1;
  ImGui::SameLine(0, f);
  if (st.running) {
    const float frac = st.total > 0 ? float(st.done) / float(st.total) : 0.0f;
    ImGui::SetNextItemWidth(f * 14);
    ImGui::ProgressBar(frac, ImVec2(f * 14, 0),
                       ablation_progress_label(st).c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) state.commands.push(CancelAblation{});
  } else if (ImGui::Button(format("Run ablation (%d passes)", passes + 1).c_str())) {
    state.commands.push(RunAblation{});
  }
}

// The selected head's tokens whose log-probability changed most, largest |change| first.
void token_table(const HeadAblation& a, int layer, int head, ImVec2 size) {
  const Vec& d = a.delta_logprob[size_t(layer)][size_t(head)];  // [T-1]
  if (d.size() == 0 || std::isnan(a.delta_loss(layer, head))) {
    ImGui::TextDisabled("Not run (the ablation was cancelled before this head).");
    return;
  }
  std::vector<int> order(size_t(d.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return std::abs(d(x)) > std::abs(d(y)); });
  if (int(order.size()) > kTokenRows) order.resize(size_t(kTokenRows));
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_NoHostExtendX;
  if (!ImGui::BeginTable("ablation tokens", 5, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("pos", 0, 0.5f);
  ImGui::TableSetupColumn("token", 0, 1.4f);
  ImGui::TableSetupColumn("next token", 0, 1.4f);
  ImGui::TableSetupColumn("\xCE\x94 log p", 0, 1.0f);
  ImGui::TableSetupColumn("p \xE2\x86\x92 without", 0, 1.5f);
  ImGui::TableHeadersRow();
  const float m = std::max(d.cwiseAbs().maxCoeff(), 1e-6f);
  const auto label = [&](size_t i) {
    return a.tokens.size() > i ? abbreviate(display_token(a.tokens, i), 16) : std::to_string(a.ids[i]);
  };
  for (const int t : order) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", t);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label(size_t(t)).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label(size_t(t + 1)).c_str());
    ImGui::TableNextColumn();
    // as the map: red where the head helped (log p fell without it)
    coloured_value_cell(kAblationColours, colour_t(kAblationColours, -d(t), m), format_change(double(d(t)), 4).c_str(), 0.85f);
    ImGui::TableNextColumn();
    const double base = a.base_logprob(t);
    ImGui::Text("%.3f \xE2\x86\x92 %.3f", std::exp(base), std::exp(base + double(d(t))));
  }
  ImGui::EndTable();
}

void result_view(AppState& state, const UiContext& ui, const AblationStatus& st, const HeadAblation& a) {
  const Derived& d = *ui.derived;
  const float f = ImGui::GetFontSize();
  const int L = a.n_layers(), H = a.n_heads();
  int measured = 0;
  for (Eigen::Index i = 0; i < a.delta_loss.size(); ++i) measured += std::isnan(a.delta_loss.data()[i]) ? 0 : 1;
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Mean next-token loss %.4f nats over %d predictions (%s ablation). Red: the loss rises without the head "
                      "(it helps); blue: it falls.%s",
                      a.base_loss, int(a.base_logprob.size()), ablation_mode_name(a.mode),
                      state.present.active ? "" : " Click a head for its tokens, double-click to open its map.");
  ImGui::PopTextWrapPos();
  if (!a.complete)
    ImGui::TextColored(tone(Tone::warning), "Cancelled after %d of %d heads: the others are blank (0).", measured, L * H);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float bar_w = colour_bar_width();
  const float map_w = std::min(avail.x * 0.4f, avail.y * float(H) / float(std::max(L, 1)) + f * 3);
  std::vector<std::string> layer_names, head_names;
  for (int l = 0; l < L; ++l) layer_names.push_back(format("L%d", l));
  for (int h = 0; h < H; ++h) head_names.push_back(format("h%d", h));
  const Map map = loss_map(a);  // [L, H]
  const ScaleRange range = scale_range(ColourScale{ScaleMode::linear, false, kAblationColours}, largest_change(a));
  HeatmapSpec spec = heatmap_spec("ablation", map_version(st.serial), plain_map(map), range, kAblationColours);
  spec.row_labels = &layer_names;
  spec.col_labels = &head_names;
  spec.label_font_max = f * 0.85f;
  spec.highlight_row = state.layer, spec.highlight_col = state.head;
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(map_w, avail.y));
  if (hit.hovered && hit.row >= 0 && hit.row < L && hit.col < H) {
    const float v = a.delta_loss(hit.row, hit.col);
    if (std::isnan(v))
      ImGui::SetTooltip("L%d h%d: not run (cancelled)", hit.row, hit.col);
    else
      ImGui::SetTooltip("L%d h%d: mean loss %s nats without it (%.4f \xE2\x86\x92 %.4f)\nclick: its tokens; double-click: open its map",
                        hit.row, hit.col, format_change(double(v), 4).c_str(), a.base_loss, a.base_loss + double(v));
  }
  if (hit.clicked && hit.row >= 0) state.layer = hit.row, state.head = hit.col;
  if (hit.double_clicked && hit.row >= 0) open_head(state, hit.row, hit.col);
  ImGui::SetCursorScreenPos(ImVec2(start.x + map_w + f * 0.5f, start.y));
  ImGui::BeginGroup();
  ImGui::TextDisabled("\xCE\x94 loss\n(nats)");
  draw_colour_bar(ui, range, kAblationColours, ImVec2(bar_w, std::min(avail.y - f * 3, f * 22)));
  ImGui::EndGroup();

  // The selected head: its tokens, and its map.
  const int layer = std::clamp(state.layer, 0, L - 1), head = std::clamp(state.head, 0, H - 1);
  const float x0 = start.x + map_w + bar_w + f * 1.5f;
  const float right_w = start.x + avail.x - x0;
  if (right_w < f * 8) return;
  ImGui::SetCursorScreenPos(ImVec2(x0, start.y));
  ImGui::BeginGroup();
  const float dl = a.delta_loss(layer, head);
  section_title(ui.fonts.heading, format("L%d h%d", layer, head).c_str(),
                std::isnan(dl) ? "not run" : format("loss %s nats without it; tokens whose log-probability changed most", format_change(double(dl), 4).c_str()).c_str());
  const float table_h = std::min(avail.y * 0.45f, f * 1.6f * float(kTokenRows + 1) + f);
  token_table(a, layer, head, ImVec2(right_w, table_h));
  const RunAnalysis& r = *d.analysis;
  if (layer < r.run.n_layers() && head < r.run.n_heads()) {
    const Map& m = r.run.attention[size_t(layer)][size_t(head)];  // [T, T]
    const float map_h = avail.y - (ImGui::GetCursorScreenPos().y - start.y) - f * 0.5f;
    const float bar_h = colour_bar_across_height();
    if (m.size() > 0 && map_h > f * 4 + bar_h) {
      const ScaleRange att = scale_range(state.scale, colour_scale_max({&m}, state.scale.ignore_first_key, &r.run.special_tokens));
      HeatmapSpec hs = heatmap_spec(format("ablation map L%d h%d", layer, head), map_version(d.generation, layer, head),
                                    head_map(r.run, layer, head), att, state.scale.colormap, layer, head);
      hs.row_labels = hs.col_labels = &r.map_labels;
      hs.label_font_max = f * 0.8f;
      const HeatmapHit mh = draw_heatmap(ui, hs, ImVec2(right_w, map_h - bar_h - f * 0.3f));
      draw_colour_bar_across(ui, att, state.scale.colormap, ImVec2(std::min(right_w, f * 20), bar_h));
      if (mh.hovered && mh.row >= 0) ImGui::SetTooltip("%s%s", cell_text(r, mh.row, mh.col, m(mh.row, mh.col)).c_str(), block_note(mh).c_str());
      if (mh.double_clicked) open_head(state, layer, head);
    }
  }
  ImGui::EndGroup();
}

}  // namespace

void draw_ablation(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const RunAnalysis& a = *d.analysis;
  const std::string why = ablation_unavailable(a);
  if (!why.empty()) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", why.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  const AblationStatus& st = ui.ablation;
  controls(state, st, a.run.n_layers() * a.run.n_heads());
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("Which heads matter for this sentence: each head knocked out in turn, %d forward passes; the change in the mean "
                      "next-token loss (positive: the model is worse without the head).",
                      a.run.n_layers() * a.run.n_heads() + 1);
  ImGui::PopTextWrapPos();
  if (!st.error.empty() && !st.running) {
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextColored(tone(Tone::error), "Ablation failed: %s", st.error.c_str());
    ImGui::PopTextWrapPos();
  }
  if (st.running || !st.result) {
    if (!st.running && st.error.empty()) ImGui::TextUnformatted("No ablation yet: press Run ablation.");
    return;
  }
  const AblationMode shown_mode = state.ablation.mean ? AblationMode::mean : AblationMode::zero;
  const bool same_input = same_model_request(st.request, a.request);
  if (!same_input || st.result->mode != shown_mode) {
    ImGui::TextColored(tone(Tone::warning), "Stale, run again: %s since the last ablation.",
                       same_input ? "the ablation mode changed" : "the sentence or model changed");
    return;
  }
  result_view(state, ui, st, *st.result);
}

}  // namespace hs::gui
