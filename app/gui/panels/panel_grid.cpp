// The head grid: every head of the selected layer as a heatmap with token labels and one shared
// colour bar; heads sharing a key/value head sit together in a marked box. Click opens a head
// large. With several layers, a layers x heads overview.
// Sections, in order: colour ranges and the cell tooltip, one layer's grid (draw_layer_grid), the
// lesson's compare entries side by side (draw_compare), the layers x heads overview
// (draw_all_layers), draw_grid.
#include <algorithm>
#include <vector>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/grid_layout.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/order_control.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/grid_present.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/head_order.h"
#include "app/gui/state/selection.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/token_notes.h"

namespace hs::gui {
namespace {

ScaleRange layer_range(const AppState& state, const RunAnalysis& a, int layer) {
  const bool skip = state.scale.ignore_first_key;
  return scale_range(state.scale, skip ? a.layer_max_skip_first[size_t(layer)] : a.layer_max[size_t(layer)]);
}

// The overview shares one scale across every layer.
ScaleRange model_range(const AppState& state, const RunAnalysis& a) {
  const auto& maxima = state.scale.ignore_first_key ? a.layer_max_skip_first : a.layer_max;
  return scale_range(state.scale, maxima.empty() ? 1.0f : *std::max_element(maxima.begin(), maxima.end()));
}

void cell_tooltip(const RunAnalysis& a, int layer, int head, const HeatmapHit& hit) {
  if (hit.row < 0) return;
  const float w = a.run.attention[size_t(layer)][size_t(head)](hit.row, hit.col);
  ImGui::SetTooltip("%s\n%s%s", head_name(layer, head, a.run.n_layers()).c_str(), cell_text(a, hit.row, hit.col, w).c_str(),
                    block_note(hit).c_str());
}

// Every head of the selected layer of `d` (the result on screen, or a lesson's compare entry).
// `prefix` names the heatmaps ("grid", or "compare1" for a lesson's side-by-side entries).
// With `per_head`, each head is coloured on its own range (range gives the mode only).
// With `clustered`, heads in the order of their clustering (state/head_order.h), without the
// key/value group boxes (a cluster may mix groups).
void draw_layer_grid(AppState& state, const UiContext& ui, const RunAnalysis& d, uint64_t version, ImVec2 area,
                     const ScaleRange& range, const char* prefix, bool per_head = false, bool clustered = false) {
  if (state.present.active) return draw_present_layer_grid(state, ui, d, version, area, range, prefix, per_head);
  const int layer = std::min(state.layer, d.run.n_layers() - 1), heads = d.run.n_heads();
  const int group = clustered ? 1 : heads_per_group(d.run.info);
  const std::vector<int> order = head_order(d, layer, clustered);  // position -> head
  const float f = ImGui::GetFontSize(), gap = f * 0.9f, title_h = f * 1.5f;
  GridLayout g = layout_grid(heads, group, area.x, area.y, title_h, gap);
  {
    // Rows only as tall as a map with its labels needs (maps are square, so tiles often are wide).
    HeatmapSpec probe;
    probe.map = &d.run.attention[size_t(layer)][0];
    probe.row_labels = probe.col_labels = &d.map_labels;
    probe.label_font_max = f * 0.85f;
    const HeatmapLayout L = layout_heatmap(probe, ImVec2(g.tile_w - gap, g.tile_h - gap - title_h), ImGui::GetFont(), f);
    g.tile_h = std::min(g.tile_h, L.cell * float(probe.map->rows()) + L.bottom + title_h + gap);
  }
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Key/value groups: a tinted box behind each group's tiles (a group is whole rows or part of one).
  if (group > 1) {
    for (int start = 0; start < heads; start += group) {
      const int r = start / g.cols, c0 = start % g.cols, c1 = std::min(c0 + group, g.cols);
      const int r1 = (std::min(start + group, heads) - 1) / g.cols + 1;
      const ImVec2 a(origin.x + c0 * g.tile_w - gap * 0.35f, origin.y + r * g.tile_h - 2);
      const ImVec2 b(origin.x + c1 * g.tile_w - gap * 0.45f, origin.y + r1 * g.tile_h - gap * 0.4f);
      const bool odd = (start / group) % 2;
      dl->AddRectFilled(a, b, odd ? tone_u32(Tone::group, 0.14f) : tone_u32(Tone::mark, 0.10f), 6);
      dl->AddRect(a, b, odd ? tone_u32(Tone::group, 0.6f) : tone_u32(Tone::mark, 0.47f), 6, 0, 1.5f);
    }
  }
  for (int i = 0; i < heads; ++i) {
    const int h = order[size_t(i)];
    const int r = i / g.cols, c = i % g.cols;
    const ImVec2 tile(origin.x + c * g.tile_w, origin.y + r * g.tile_h);
    ImGui::SetCursorScreenPos(ImVec2(tile.x + 4, tile.y + 2));
    std::string title = head_name(layer, h, d.run.n_layers());
    if (group > 1) title += format("  \xC2\xB7  kv %d", h / group);
    // Narrow tiles: the short name, so titles never run into each other.
    if (ImGui::CalcTextSize(title.c_str()).x > g.tile_w - gap) title = format("h%d", h);
    if (ImGui::CalcTextSize(title.c_str()).x > g.tile_w - gap) title.clear();
    if (h == state.head) ImGui::TextColored(accent_text(), "%s", title.c_str());
    else ImGui::TextUnformatted(title.c_str());
    ImGui::SetCursorScreenPos(ImVec2(tile.x, tile.y + title_h));
    const Map& map = d.run.attention[size_t(layer)][size_t(h)];  // [T, T]
    const ScaleRange own = per_head ? scale_range(state.scale, colour_scale_max({&map}, state.scale.ignore_first_key, &d.run.special_tokens)) : range;
    HeatmapSpec spec = heatmap_spec(format("%s L%d h%d", prefix, layer, h), map_version(version, layer, h), head_map(d.run, layer, h),
                                    own, state.scale.colormap, layer, h);
    spec.relative_bar = per_head;
    spec.row_labels = spec.col_labels = &d.map_labels;
    spec.selected = h == state.head;
    spec.first_generated = d.map_index(first_generated(d.run));
    spec.boundary = d.run.segment_b_start > 0 ? d.map_index(d.run.segment_b_start) : -1;
    spec.label_font_max = f * 0.85f;
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(g.tile_w - gap, g.tile_h - gap - title_h));
    if (hit.hovered) cell_tooltip(d, layer, h, hit);
    if (hit.clicked) {  // a lesson step that keeps its view opens the head in place
      if (hit.row >= 0 && !control_locked(state, LessonControl::queries)) state.query.queries = {d.map_token(hit.row)};
      open_head(state, layer, h);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

// "4 heads of width 2, causal" for the label above a side-by-side block.
std::string describe(const ModelInfo& info, const AttentionConfig& c) {
  std::string s = format("%d head%s of width %d", info.n_heads, info.n_heads == 1 ? "" : "s", info.d_head);
  if (info.n_kv_heads != info.n_heads) s += format(", %d key/value", info.n_kv_heads);
  if (c.causal) s += ", causal";
  if (c.window >= 0) s += format(", window %d", c.window);
  if (c.scrambled_reshape) s += ", scrambled reshape";
  return s;
}

// A lesson step's compare entries: the step's own grid and one labelled grid per entry, side
// by side on one shared colour scale.
ScaleRange compare_range(const AppState& state, const Derived& d) {
  float m = 0;
  const auto layer_max = [&](const RunAnalysis& x) {
    const auto& maxima = state.scale.ignore_first_key ? x.layer_max_skip_first : x.layer_max;
    return maxima.empty() ? 0.0f : maxima[size_t(std::min(state.layer, int(maxima.size()) - 1))];
  };
  m = layer_max(*d.analysis);
  for (const CompareResult& c : d.compare)
    if (c.analysis) m = std::max(m, layer_max(*c.analysis));
  return scale_range(state.scale, m > 0 ? m : 1.0f);
}

// Returns the maps' area of the arrangement chosen (presenting); with `measure`, only that (nothing drawn).
float draw_compare(AppState& state, const UiContext& ui, ImVec2 area, const ScaleRange& range, bool measure = false) {
  const Derived& d = *ui.derived;
  const int blocks = 1 + int(d.compare.size());
  // Presenting, the block labels are in the body font and the blocks closer: the maps get the room.
  const bool present = state.present.active;
  const float f = ImGui::GetFontSize(), gap = f * (present ? 0.6f : 1.2f);
  ImFont* const label_font = present ? nullptr : ui.fonts.heading;
  const auto block_analysis = [&](int b) { return b == 0 ? d.analysis.get() : d.compare[size_t(b - 1)].analysis.get(); };
  const auto block_label = [&](int b) {
    return b == 0 ? "this step: " + describe(d.run().info, d.analysis->request.attention) : d.compare[size_t(b - 1)].label;
  };
  // Blocks in the arrangement (columns x rows) whose smallest map is largest; labels wrap.
  if (label_font) ImGui::PushFont(label_font);
  int best_cols = blocks;
  float best_side = -1, label_h = 0;
  // Presenting, blocks stacked in a column share the lowest block's column labels: only the last
  // row of blocks keeps that margin.
  const float shared_bottom = present ? present_label_bottom(*d.analysis) : 0.0f;
  const auto row_height = [&](int rows) { return (area.y - gap * float(rows - 1) - shared_bottom) / float(rows); };
  // Presenting blocks side by side (one row) of the same sentence, held by the width: one column
  // of row labels, left of the first block, serves them all (every block draws with one cell
  // size, so the rows line up); the other blocks keep no left margin: the maps get the width.
  // Only when that makes the maps larger: otherwise each block keeps its own labels.
  bool same_tokens = present && blocks > 1;
  for (int b = 0; b < blocks && same_tokens; ++b) {
    const RunAnalysis* x = block_analysis(b);
    same_tokens = x && x->run.n_heads() > 0 && x->map_labels == d.analysis->map_labels;
  }
  bool share_chosen = false;
  // The label column's width, the other blocks' width and the grid every block draws with (the
  // smallest cell of any block's own).
  struct SideBySide {
    float left = 0, bw = 0;
    PresentGrid like;
  };
  const auto side_by_side = [&](float lh) {
    SideBySide s;
    s.left = present_label_left(*d.analysis);
    const float height = area.y - lh;  // one row of blocks, each with its column labels
    for (int round = 0; round < 3; ++round) {  // larger maps, larger labels: a wider column
      s.bw = (area.x - s.left - gap * float(blocks - 1)) / float(blocks);
      const float left = present_grid(*d.analysis, ImVec2(s.bw + s.left, height)).labels.left;
      if (left <= s.left + 0.5f) break;
      s.left = left;
    }
    s.like.cell = -1;
    for (int b = 0; b < blocks; ++b) {
      const PresentGrid g = present_grid(*block_analysis(b), ImVec2(b == 0 ? s.bw + s.left : s.bw, height), true, b == 0);
      if (s.like.cell < 0 || g.cell < s.like.cell) s.like = g;
    }
    return s;
  };
  for (int cols = 1; cols <= blocks; ++cols) {
    const int rows = (blocks + cols - 1) / cols;
    const float bw = (area.x - gap * float(cols - 1)) / float(cols), bh = row_height(rows);
    float lh = 0, side = 1e9f;
    for (int b = 0; b < blocks; ++b) lh = std::max(lh, ImGui::CalcTextSize(block_label(b).c_str(), nullptr, false, bw).y);
    lh += f * 0.5f;
    for (int b = 0; b < blocks; ++b) {
      const RunAnalysis* x = block_analysis(b);
      if (!x || x->run.n_heads() == 0) continue;
      if (state.present.active) {
        side = std::min(side, present_map_side(*x, ImVec2(bw, bh - lh), false));
        continue;
      }
      const GridLayout g = layout_grid(x->run.n_heads(), heads_per_group(x->run.info), bw, bh - lh, f * 1.5f, f * 0.9f);
      side = std::min(side, std::min(g.tile_w - f * 0.9f, g.tile_h - f * 2.4f));
    }
    if (side > best_side) best_side = side, best_cols = cols, label_h = lh;
  }
  // Presenting: rows of blocks share the height by need, not equally. A row whose maps are held
  // by the width (eight heads side by side) keeps only the height it draws; the rest goes to the
  // rows held by their height (a few heads that can grow). The arrangement with the most map area.
  const auto row_heights = [&](int c, float lh, float* area_out) {
    const int rows = (blocks + c - 1) / c;
    const float bw = (area.x - gap * float(c - 1)) / float(c);
    // The height row r draws when given `h`.
    const auto need = [&](int r, float h) {
      float n = lh;
      for (int b = r * c; b < std::min(blocks, (r + 1) * c); ++b) {
        const RunAnalysis* x = block_analysis(b);
        if (!x || x->run.n_heads() == 0) continue;
        const bool lowest = b + c >= blocks;
        const float extra = lowest ? shared_bottom : 0.0f;
        n = std::max(n, lh + present_grid_height(*x, ImVec2(bw, h - lh + extra), lowest) - extra);
      }
      return n;
    };
    std::vector<float> hs(size_t(rows), row_height(rows));
    std::vector<bool> held(size_t(rows), false);
    for (int round = 0; round < 4; ++round) {
      float spare = 0;
      int growing = 0;
      for (int r = 0; r < rows; ++r) {
        if (held[size_t(r)]) continue;
        const float n = need(r, hs[size_t(r)]);
        // Held by the width: more height would not grow its maps.
        if (need(r, hs[size_t(r)] + f * 4) <= n + 1.0f) spare += hs[size_t(r)] - n, hs[size_t(r)] = n, held[size_t(r)] = true;
        else ++growing;
      }
      if (spare <= 1.0f || growing == 0) break;
      for (int r = 0; r < rows; ++r)
        if (!held[size_t(r)]) hs[size_t(r)] += spare / float(growing);
    }
    if (area_out) {
      float total = 0;
      for (int b = 0; b < blocks; ++b) {
        const RunAnalysis* x = block_analysis(b);
        if (!x || x->run.n_heads() == 0) continue;
        const bool lowest = b + c >= blocks;
        const float side = present_map_side(*x, ImVec2(bw, hs[size_t(b / c)] - lh + (lowest ? shared_bottom : 0.0f)), lowest);
        total += float(x->run.n_heads()) * side * side;
      }
      *area_out = total;
    }
    return hs;
  };
  float best_area = -1;
  if (present) {
    if (label_font) ImGui::PushFont(label_font);
    // The blocks' labels' height over blocks of width bw.
    const auto labels_height = [&](float bw) {
      float lh = 0;
      for (int b = 0; b < blocks; ++b) lh = std::max(lh, ImGui::CalcTextSize(block_label(b).c_str(), nullptr, false, bw).y);
      return lh + f * 0.5f;
    };
    for (int c = 1; c <= blocks; ++c) {
      const float lh = labels_height((area.x - gap * float(c - 1)) / float(c));
      float total = 0;
      row_heights(c, lh, &total);
      if (total > best_area) best_area = total, best_cols = c, label_h = lh, share_chosen = false;
      if (c == blocks && same_tokens) {  // side by side, one row-label column: 1% larger maps at least
        const float shared_lh = labels_height((area.x - present_label_left(*d.analysis) - gap * float(c - 1)) / float(c));
        const float side = std::max(side_by_side(shared_lh).like.cell, 0.0f) * float(d.analysis->map_labels.size());
        float shared_total = 0;
        for (int b = 0; b < blocks; ++b) shared_total += float(block_analysis(b)->run.n_heads()) * side * side;
        if (shared_total > best_area * 1.01f) best_area = shared_total, best_cols = c, label_h = shared_lh, share_chosen = true;
      }
    }
    if (label_font) ImGui::PopFont();
  }
  if (label_font) ImGui::PopFont();
  if (measure) return best_area;
  const int cols = best_cols, rows = (blocks + cols - 1) / cols;
  const bool shared_rows = share_chosen;
  const SideBySide sbs = shared_rows ? side_by_side(label_h) : SideBySide{};
  const float w = shared_rows ? sbs.bw : (area.x - gap * float(cols - 1)) / float(cols);
  const float h = present ? row_height(rows) : (area.y - gap * float(rows - 1)) / float(rows);
  std::vector<float> row_h(size_t(rows), h), row_y(size_t(rows), 0.0f);
  if (present && !shared_rows) row_h = row_heights(cols, label_h, nullptr);
  // A block's left edge and width: sharing the row labels, the first block also holds their column.
  const auto block_x = [&](int c) { return float(c) * (w + gap) + (shared_rows && c > 0 ? sbs.left : 0.0f); };
  const auto block_w = [&](int c) { return w + (shared_rows && c == 0 ? sbs.left : 0.0f); };
  for (int r = 1; r < rows; ++r) row_y[size_t(r)] = row_y[size_t(r - 1)] + row_h[size_t(r - 1)] + gap;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (int b = 0; b < blocks; ++b) {
    const RunAnalysis* x = block_analysis(b);
    const float bh = row_h[size_t(b / cols)], bw = block_w(b % cols);
    const ImVec2 at(origin.x + block_x(b % cols), origin.y + row_y[size_t(b / cols)]);
    if (b % cols > 0) dl->AddLine(ImVec2(at.x - gap * 0.5f, at.y), ImVec2(at.x - gap * 0.5f, at.y + bh), dim_text_colour(), 1.0f);
    if (b / cols > 0 && b % cols == 0)
      dl->AddLine(ImVec2(origin.x, at.y - gap * 0.5f), ImVec2(origin.x + area.x, at.y - gap * 0.5f), dim_text_colour(), 1.0f);
    ImGui::SetCursorScreenPos(at);
    if (label_font) ImGui::PushFont(label_font);
    ImGui::PushTextWrapPos(at.x + bw - ImGui::GetWindowPos().x);
    ImGui::TextColored(b == 0 ? accent_text() : tone(Tone::secondary), "%s", block_label(b).c_str());
    ImGui::PopTextWrapPos();
    if (label_font) ImGui::PopFont();
    ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + label_h));
    if (!x) {
      ImGui::PushTextWrapPos(at.x + bw - ImGui::GetWindowPos().x);
      ImGui::TextColored(tone(Tone::error), "%s", d.compare[size_t(b - 1)].error.c_str());
      ImGui::PopTextWrapPos();
      continue;
    }
    if (x->run.n_heads() == 0) continue;
    ImGui::PushID(b);
    const std::string prefix = b == 0 ? "grid" : format("compare%d", b);
    if (present) {
      const bool lowest = b + cols >= blocks;  // no block below: this one shows the column labels
      draw_present_layer_grid(state, ui, *x, d.generation, ImVec2(bw, bh - label_h + (lowest ? shared_bottom : 0.0f)), range,
                              prefix.c_str(), false, lowest, !shared_rows || b == 0, shared_rows ? &sbs.like : nullptr);
    } else {
      draw_layer_grid(state, ui, *x, d.generation, ImVec2(w, h - label_h), range, prefix.c_str());
    }
    ImGui::PopID();
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
  return best_area;
}

void draw_all_layers(AppState& state, const UiContext& ui, ImVec2 area) {
  const Derived& d = *ui.derived;
  const RunAnalysis& a = *d.analysis;
  if (state.present.active) return draw_present_all_layers(state, ui, d, area, model_range(state, a));
  const int layers = d.run().n_layers(), heads = d.run().n_heads();
  const float f = ImGui::GetFontSize(), left = ImGui::CalcTextSize("L00").x + 8, top = f * 1.6f;
  const float side = std::max(4.0f, std::min((area.x - left) / heads, (area.y - top) / layers));
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int group = heads_per_group(d.run().info);
  for (int h = 0; h < heads; ++h) {
    std::string label = format("h%d", h);
    if (group > 1 && h % group == 0 && side * group > f * 4) label += format("  kv %d", h / group);
    if (side > f * 1.6f || (group > 1 && h % group == 0)) dl->AddText(ImVec2(origin.x + left + h * side + 2, origin.y), dim_text_colour(), label.c_str());
    // Key/value groups: a bar over each group's columns.
    if (group > 1 && h % group == 0) {
      const bool odd = (h / group) % 2;
      dl->AddRectFilled(ImVec2(origin.x + left + h * side, origin.y + top - 5), ImVec2(origin.x + left + (h + group) * side - 4, origin.y + top - 2),
                        odd ? tone_u32(Tone::group, 0.86f) : accent_colour(0.8f));
    }
  }
  const ScaleRange range = model_range(state, a);
  for (int l = 0; l < layers; ++l) {
    dl->AddText(ImVec2(origin.x, origin.y + top + l * side + side * 0.5f - f * 0.5f), dim_text_colour(), format("L%d", l).c_str());
    for (int h = 0; h < heads; ++h) {
      ImGui::SetCursorScreenPos(ImVec2(origin.x + left + h * side, origin.y + top + l * side));
      HeatmapSpec spec = heatmap_spec(format("overview L%d h%d", l, h), map_version(d.generation, l, h), head_map(d.run(), l, h),
                                      range, state.scale.colormap, l, h);
      spec.selected = l == state.layer && h == state.head;
      spec.boundary = d.run().segment_b_start > 0 ? d.analysis->map_index(d.run().segment_b_start) : -1;
      const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(side - 3, side - 3));
      if (hit.hovered) cell_tooltip(a, l, h, hit);
      if (hit.clicked) open_head(state, l, h);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

}  // namespace

void draw_grid(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const int layers = d.run().n_layers();
  if (layers == 0 || d.run().n_heads() == 0) return;
  // Presenting a step that fixes the colours: no toolbar, the maps get the line.
  const bool present = state.present.active;
  const bool bare = present && control_locked(state, LessonControl::color_scale) && control_locked(state, LessonControl::colormap);
  if (!bare) draw_scale_controls(state, d.run());
  // Presenting without the colour controls, the layer controls go in the colour bar's column:
  // the maps get the line.
  const bool layer_tools = layers > 1 && (!bare || !control_locked(state, LessonControl::layer));
  const auto draw_layer_tools = [&] {
    ImGui::Checkbox("all layers", &state.grid.all_layers);
    if (!state.grid.all_layers) {
      if (!bare) ImGui::SameLine();
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
      ImGui::InputInt("layer", &state.layer);
      state.layer = std::clamp(state.layer, 0, layers - 1);
    }
  };
  if (layer_tools && !bare) {
    ImGui::SameLine();
    draw_layer_tools();
  }
  const bool overview = state.grid.all_layers && layers > 1;
  const bool compare = !overview && !d.compare.empty();
  if (!overview && !compare && !bare) {
    ImGui::SameLine();
    ImGui::Checkbox("range per head", &state.grid.per_head_range);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Off: one colour range for the layer, so a dim head looks dim. On: each head on its own range.");
    if (d.run().n_heads() > 2) {
      ImGui::SameLine();
      draw_order_control("grid order", state.grid.clustered);
    }
  }
  const bool opened = state.grid.opened >= 0 && state.grid.opened < d.run().n_heads();
  const bool per_head = state.grid.per_head_range && !overview && !compare && !opened;
  const int group = heads_per_group(d.run().info);
  if (!d.analysis->long_input_note.empty()) ImGui::TextWrapped("%s", d.analysis->long_input_note.c_str());
  else if (!present) ImGui::TextDisabled("%s", group > 1 ? "Coloured boxes and bars group the query heads that share one key/value head. Click a head to open it."
                                      : "Rows are queries, columns are keys; each row sums to 1. Click a head to open it.");
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // Presenting: a bar just wide enough for its ticks (the caption above it wraps).
  float bar_w = present ? ImGui::CalcTextSize("0.000").x + ImGui::GetFontSize() * 1.6f + 8.0f : colour_bar_width();
  if (layer_tools && bare) bar_w = std::max(bar_w, ImGui::CalcTextSize("all layers").x + ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + 4);
  // Presenting compared models side by side, the maps are held by the width: the colour bar goes
  // across under them when that leaves the maps larger (its column is width they need).
  const float across_h = colour_bar_across_height() + ImGui::GetFontSize() * 0.5f;
  bool across = false;
  if (present && compare && !opened && !(layer_tools && bare)) {
    const ScaleRange r = compare_range(state, d);
    across = draw_compare(state, ui, ImVec2(avail.x, avail.y - across_h), r, true) >
             draw_compare(state, ui, ImVec2(avail.x - bar_w - 12, avail.y), r, true);
  }
  const ImVec2 area = across ? ImVec2(avail.x, avail.y - across_h) : ImVec2(avail.x - bar_w - 12, avail.y);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ScaleRange range = opened    ? layer_range(state, *d.analysis, state.layer)
                           : overview ? model_range(state, *d.analysis)
                           : compare ? compare_range(state, d)
                           : per_head ? scale_range(state.scale, 1.0f)  // the bar: a share of each head's largest
                                      : layer_range(state, *d.analysis, state.layer);
  if (opened) draw_opened_head(state, ui, *d.analysis, d.generation, area, range);
  else if (overview) draw_all_layers(state, ui, area);
  else if (compare) draw_compare(state, ui, area, range);
  else draw_layer_grid(state, ui, *d.analysis, d.generation, area, range, "grid", per_head, state.grid.clustered);
  if (across) {  // the caption, then the bar on the same line
    const float f = ImGui::GetFontSize();
    ImGui::SetCursorScreenPos(ImVec2(start.x, start.y + area.y + f * 0.5f));
    ImGui::TextDisabled("%s", scale_caption(range).c_str());
    ImGui::SameLine(0, f);
    draw_colour_bar_across(ui, range, state.scale.colormap, ImVec2(std::min(area.x * 0.45f, f * 24), colour_bar_across_height()));
    return;
  }
  ImGui::SetCursorScreenPos(ImVec2(start.x + area.x + 12, start.y));
  ImGui::BeginGroup();
  if (layer_tools && bare) draw_layer_tools();
  const std::string scope = opened ? format("range: layer %d", state.layer)
                            : overview ? "range: all layers" : compare ? "range: shared by all"
                            : per_head ? "range: each head\n(share of its max)"
                                       : format("range: layer %d", state.layer);
  if (present) ImGui::TextDisabled("%s", scale_caption(range).c_str());
  else ImGui::TextDisabled("%s\n%s", scale_caption(range).c_str(), scope.c_str());
  const float bar_h = present ? area.y * 0.6f : std::min(area.y - ImGui::GetFontSize() * 2, 420.0f);
  draw_colour_bar(ui, range, state.scale.colormap, ImVec2(bar_w, bar_h));
  ImGui::EndGroup();
}

}  // namespace hs::gui
