// Head width: the limit a head's width sets, in three parts (WidthPanelState::show): which keys
// each head can pick and the pattern fit (panel_width_reach.cpp), and the head-count sweep (mean
// head difference, entropy, ranks and reachable keys against head count, averaged over seeds) with
// each head's singular values, which show score rank <= d_head.
#include <algorithm>
#include <vector>
#include <cmath>

#include "app/gui/widgets/chart.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/panels/panels.h"
#include "app/gui/panels/width_parts.h"
#include "app/gui/widgets/theme.h"
#include "core/analysis/long_input.h"
#include "core/analysis/sweep_summary.h"
#include "core/analysis/target_pattern.h"
#include "core/render/category_palette.h"

namespace hs::gui {
namespace {


// The sweep's three charts in a column of `size` (the sweep is available).
void draw_sweep(const AppState& state, const Sweep& sweep, ImVec2 size) {
  ChartSpec base;
  int highlight = -1;
  for (size_t i = 0; i < sweep.points.size(); ++i) {
    base.x_labels.push_back(std::to_string(sweep.points[i].n_heads));
    if (sweep.points[i].n_heads == state.request.attention.n_heads) highlight = int(i);
  }
  base.highlight_x = highlight;
  auto series = [&](const char* name, float SweepPoint::*field, ImU32 colour) {
    ChartSeries s{name, {}, colour};
    for (const SweepPoint& p : sweep.points) s.values.push_back(p.*field);
    return s;
  };
  // Three charts when each gets about six lines (title, a plot, ticks; eight presenting, read from
  // the back of the room); in less height only the rank chart, the step's subject: the summary
  // above says the distance and entropy numbers in words.
  const float spacing = ImGui::GetStyle().ItemSpacing.y;
  const bool all = (size.y - spacing * 3) / 3.0f >= ImGui::GetFontSize() * (state.present.active ? 8.0f : 6.0f);
  const float h = all ? (size.y - spacing * 3) / 3.0f : size.y - spacing;
  int hovered = -1;
  ChartSpec diff = base;
  diff.title = "mean head distance  (0 to 1; no pair with one head)";
  diff.series = {series("distance", &SweepPoint::mean_head_distance, tone_u32(Tone::series_orange))};
  if (all) hovered = std::max(hovered, draw_chart(diff, ImVec2(size.x, h)));
  ChartSpec entropy = base;
  entropy.title = "mean row entropy (nats)";
  entropy.series = {series("entropy", &SweepPoint::mean_entropy, tone_u32(Tone::series_green))};
  if (all) hovered = std::max(hovered, draw_chart(entropy, ImVec2(size.x, h)));
  ChartSpec rank = base;
  rank.title = "rank and reachable keys per head";
  rank.x_caption = format("heads  (d_model %d; d_head = d_model / heads)", sweep.d_model);
  // d_head is the ceiling the score rank reaches: a wide pale band under the dashed score rank,
  // so that both (and both legend entries) show where they coincide.
  ChartSeries width{"d_head", {}, tone_u32(Tone::series_grey, 0.45f), false, false, 8.0f};
  for (const SweepPoint& p : sweep.points) width.values.push_back(float(p.d_head));
  ChartSeries score_rank = series("score rank", &SweepPoint::mean_score_rank, tone_u32(Tone::series_blue));
  score_rank.dashed = true;
  rank.series = {width, score_rank,
                 series("effective rank of A", &SweepPoint::mean_effective_rank, tone_u32(Tone::series_green)),
                 series("reachable keys", &SweepPoint::mean_reachable_keys, tone_u32(Tone::series_orange))};
  hovered = std::max(hovered, draw_chart(rank, ImVec2(size.x, h)));
  if (hovered >= 0) {
    const SweepPoint& p = sweep.points[size_t(hovered)];
    const std::string pairs = p.n_heads > 1 ? format("mean head distance %.3f", double(p.mean_head_distance))
                                              : std::string("one head: no pair to compare");
    ImGui::SetTooltip("%d heads of width %d\nparameters %s\n%s\nmean row entropy %.3f nats\nscore rank %.2f\n"
                      "effective rank %.2f\nreachable keys %.1f",
                      p.n_heads, p.d_head, format_count(p.param_count).c_str(), pairs.c_str(), double(p.mean_entropy),
                      double(p.mean_score_rank), double(p.mean_effective_rank), double(p.mean_reachable_keys));
  }
}

// Each head's singular values (chart) and ranks (table) in a box of `size`.
void draw_spectra(const AppState& state, const Derived& d, ImVec2 size) {
  const int layer = state.layer, heads = d.run().n_heads(), tokens = d.run().n_tokens();
  const int d_head = d.run().info.d_head;
  const bool masked = d.run().info.causal || d.run().info.window >= 0;
  if (!d.spectrum) {  // this result was computed while no view showed them: asked for now
    ImGui::TextDisabled("computing the singular values...");
    return;
  }
  if (size_t(layer) >= d.analysis->spectrum.size() || d.analysis->spectrum[size_t(layer)].empty() ||
      d.analysis->spectrum[size_t(layer)][0].singular_values.size() == 0) {
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
    ImGui::TextWrapped("Singular values of the score matrices are computed for sentences of up to %d tokens, and only while "
                       "(maps x tokens^3) stays small enough to recompute as you type; this run has %d maps of %d tokens.",
                       kSpectrumMaxTokens, d.run().n_layers() * d.run().n_heads(), tokens);
    ImGui::PopTextWrapPos();
    return;
  }
  ChartSpec spec;
  spec.title = "singular values of each head's scores Q K^T / \xE2\x88\x9A" "d_head";
  const char* floor_text =
      "The flat tails: values under 1e-7 x a head's largest are numerically zero, drawn at that floor; the rank is the "
      "count above it.";
  spec.tooltip = masked ? std::string("The score matrix before the mask: its rank is what the head's width limits (at most "
                                      "d_head). The mask sets cells to -inf; taken as 0 they can lift the rank, the table's "
                                      "'masked' column. ") + floor_text
                        : std::string(floor_text);
  spec.log_y = true;
  spec.x_caption = masked ? "index (Q K^T before the mask); flat tail: numerically 0"
                          : "singular value index; flat tail: numerically 0";
  for (int i = 1; i <= tokens; ++i) spec.x_labels.push_back(std::to_string(i));
  if (d_head < tokens) {
    spec.marker_x = float(d_head);
    spec.marker_label = format("d_head = %d", d_head);
  }
  for (int h = 0; h < heads; ++h) {
    const Vec& s = d.analysis->spectrum[size_t(layer)][size_t(h)].singular_values;
    if (s.size() == 0) continue;
    const float floor = std::max(s(0), 1e-30f) * 1e-7f;
    // One categorical colour a head (Okabe-Ito); past eight, dashed, then dotted with markers.
    ChartSeries series{format("h%d", h), {}, category_u32(h), category_line(h) != CategoryLine::solid,
                       category_line(h) == CategoryLine::dotted};
    for (Eigen::Index i = 0; i < s.size(); ++i) series.values.push_back(std::max(s(i), floor));
    spec.series.push_back(std::move(series));
  }
  if (heads > 8)
    for (ChartSeries& s : spec.series) s.name.clear();
  // The table holds every head's row when the chart keeps seven lines; the chart takes the rest.
  const float f = ImGui::GetFontSize(), spacing = ImGui::GetStyle().ItemSpacing.y;
  const float row_h = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2;
  const float table_need = row_h * float(heads + 1) + ImGui::GetStyle().ScrollbarSize + 2;
  const float chart_h = std::clamp(size.y - table_need - spacing, std::min(f * 7, size.y * 0.5f), size.y * 0.7f);
  draw_chart(spec, ImVec2(size.x, chart_h));
  const int columns = masked ? 5 : 4;
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX |
                                ImGuiTableFlags_SizingFixedFit;
  if (ImGui::BeginTable("ranks", columns, flags, ImVec2(size.x, size.y - chart_h - spacing))) {
    ImGui::TableSetupScrollFreeze(1, 1);
    ImGui::TableSetupColumn("head");
    ImGui::TableSetupColumn(format("rank of Q K^T (\xE2\x89\xA4 %d)", d_head).c_str());
    if (masked) ImGui::TableSetupColumn("masked");
    ImGui::TableSetupColumn("effective rank");
    ImGui::TableSetupColumn("row entropy");
    // The header row by hand, so that "masked" says what it is when hovered.
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < columns; ++c) {
      ImGui::TableSetColumnIndex(c);
      ImGui::TableHeader(ImGui::TableGetColumnName(c));
      if (masked && c == 2 && ImGui::IsItemHovered())
        ImGui::SetTooltip("masked: the rank of the score matrix with its masked cells taken as 0. The mask, not the head, "
                          "lifts it above the rank of Q K^T (which is at most d_head = %d).", d_head);
    }
    for (int h = 0; h < heads; ++h) {
      const HeadSpectrum& s = d.analysis->spectrum[size_t(layer)][size_t(h)];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%s", head_name(layer, h, d.run().n_layers()).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%d of %d", s.score_rank, d_head);
      if (masked) {
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%d", s.masked_rank);
        if (ImGui::IsItemHovered())
          ImGui::SetTooltip("Rank of the masked score matrix, its masked cells taken as 0: the mask, not the head, lifts it.");
      }
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", double(s.effective_rank));
      ImGui::TableNextColumn();
      ImGui::Text("%.3f nats", double(s.mean_entropy));
    }
    ImGui::EndTable();
  }
}

// The three parts' switch (exploring: presenting, the lesson step chooses the part).
void draw_part_switch(AppState& state) {
  const bool pattern = is_pattern_name(state.width.show);
  if (ImGui::RadioButton("Which keys each head can pick", state.width.show == "keys")) state.width.show = "keys";
  ImGui::SameLine();
  if (ImGui::RadioButton("Draw a pattern", pattern) && !pattern) state.width.show = "previous";
  ImGui::SameLine();
  if (ImGui::RadioButton("Head-count sweep", state.width.show == "sweep")) state.width.show = "sweep";
}

void draw_sweep_part(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const Sweep* sweep = d.sweep.get();
  const bool sweep_shown = sweep && sweep->available;
  if (sweep_shown) {
    // The reading of the numbers, scrolling when it would leave the charts too little room
    // (large presentation fonts).
    const std::vector<std::string> lines = sweep_summary(*sweep);
    const float wrap = ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 2;
    float text_h = 0;
    for (const std::string& line : lines)
      text_h += ImGui::CalcTextSize(line.c_str(), nullptr, false, wrap).y + ImGui::GetStyle().ItemSpacing.y;
    const float room = ImGui::GetContentRegionAvail().y * 0.3f;
    if (text_h > room) ImGui::BeginChild("summary", ImVec2(0, room), false);
    for (const std::string& line : lines) {
      ImGui::Bullet();
      ImGui::TextWrapped("%s", line.c_str());
    }
    if (text_h > room) ImGui::EndChild();
    wrapped_hint(sweep->note.c_str());
  } else if (sweep) {
    ImGui::TextWrapped("%s", sweep->note.c_str());  // why there is no sweep: said once
  } else {
    ImGui::TextDisabled("computing the head-count sweep...");
  }
  // The charts need about 24 lines of height for their axes and labels: with less room they
  // scroll instead of squashing, except presenting, where they are laid out for the window (the
  // sweep column down to its rank chart, the table to its rows).
  const ImVec2 room = ImGui::GetContentRegionAvail();
  const float charts_h = std::max(room.y, ImGui::GetFontSize() * (state.present.active ? 14.0f : 24.0f));
  const bool scroll = charts_h > room.y;
  if (scroll) ImGui::BeginChild("width charts", room, false);
  const float width = ImGui::GetContentRegionAvail().x;
  if (!sweep_shown) {
    // No sweep (a checkpoint, or too many tokens): the spectra take the whole width.
    draw_spectra(state, d, ImVec2(width, charts_h));
  } else {
    const float gap = ImGui::GetFontSize() * 1.5f, left_w = (width - gap) * 0.5f;
    ImGui::BeginGroup();
    draw_sweep(state, *sweep, ImVec2(left_w, charts_h));
    ImGui::EndGroup();
    ImGui::SameLine(0, gap);
    ImGui::BeginGroup();
    draw_spectra(state, d, ImVec2(width - left_w - gap, charts_h));
    ImGui::EndGroup();
  }
  if (scroll) ImGui::EndChild();
}

}  // namespace

void draw_width(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  if (d.run().n_heads() == 0) return;
  if (!state.present.active) draw_part_switch(state);
  if (!d.spectrum) {  // this result was computed while no view showed them: asked for now
    ImGui::TextDisabled("computing...");
    return;
  }
  const ImVec2 area = ImGui::GetContentRegionAvail();
  if (state.width.show == "keys") return draw_width_keys(state, ui, area);
  if (is_pattern_name(state.width.show)) return draw_width_pattern(state, ui, area);
  draw_sweep_part(state, ui);
}

}  // namespace hs::gui
