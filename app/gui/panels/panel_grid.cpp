// The head grid: every head of the selected layer as a heatmap with token labels and one shared
// colour bar; heads sharing a key/value head sit together in a marked box. Click opens a head
// large. With several layers, a layers x heads overview.
// Sections, in order: colour ranges and the cell tooltip, one layer's grid (draw_layer_grid), the
// lesson's compare entries side by side (CompareBlocks, draw_compare), the layers x heads overview
// (draw_all_layers), draw_grid.
#include <algorithm>
#include <cfloat>
#include <vector>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/order_control.h"
#include "app/gui/widgets/present_grid.h"
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

// Exploring, the heads grid is laid out as presenting's (present_grid.h): one set of token
// labels for the grid (row labels left of the first column, column labels under each column's
// lowest map), so the maps take the room the per-map margins took; labels of 11 px at least
// (thinned to every n-th token when the cells are smaller), at most the body font's 0.85.
float grid_gap() { return ImGui::GetFontSize() * 0.7f; }
float grid_title_height() { return ImGui::GetFontSize() * 1.4f; }
PresentGrid explore_grid(const RunAnalysis& d, ImVec2 area, bool clustered) {
  const int group = clustered ? 1 : heads_per_group(d.run.info);
  return layout_present_grid(d.run.n_heads(), group, int(d.map_labels.size()), d.map_labels, ImGui::GetFont(), area,
                             grid_title_height(), grid_gap(), kSmallestLabel, ImGui::GetFontSize() * 0.85f);
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
  const float gap = grid_gap(), title_h = grid_title_height();
  const PresentGrid g = explore_grid(d, area, clustered);
  if (g.cell <= 0) return draw_grid_without_room(d, area);
  const float side = g.cell * float(d.map_labels.size());
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float cells_x = origin.x + g.labels.left;
  const auto tile_at = [&](int i) {  // the top left of position i's title (its map below it)
    return ImVec2(cells_x + float(i % g.grid.cols) * (side + gap), origin.y + float(i / g.grid.cols) * (title_h + side + gap));
  };
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // Key/value groups: a tinted box behind each group's tiles (a group is whole rows or part of one).
  if (group > 1) {
    for (int start = 0; start < heads; start += group) {
      const int r = start / g.grid.cols, c0 = start % g.grid.cols, c1 = std::min(c0 + group, g.grid.cols);
      const int r1 = (std::min(start + group, heads) - 1) / g.grid.cols + 1;
      const ImVec2 a(cells_x + float(c0) * (side + gap) - gap * 0.4f, origin.y + float(r) * (title_h + side + gap) - 2);
      const ImVec2 b(cells_x + float(c1) * (side + gap) - gap * 0.6f, origin.y + float(r1) * (title_h + side + gap) - gap * 0.5f);
      const bool odd = (start / group) % 2;
      dl->AddRectFilled(a, b, odd ? tone_u32(Tone::group, 0.14f) : tone_u32(Tone::mark, 0.10f), 6);
      dl->AddRect(a, b, odd ? tone_u32(Tone::group, 0.6f) : tone_u32(Tone::mark, 0.47f), 6, 0, 1.5f);
    }
  }
  for (int i = 0; i < heads; ++i) {
    HeadTile t;
    t.d = &d, t.version = version, t.prefix = prefix, t.layer = layer, t.head = order[size_t(i)], t.position = i;
    t.at = tile_at(i), t.side = side, t.title_size = ImGui::GetFontSize(), t.title_h = title_h, t.grid = &g;
    t.range = range, t.per_head = per_head;
    draw_head_tile(state, ui, t);
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

// The lesson's compare entries as blocks beside the step's own (block 0), laid out in `area`:
// the arrangement (columns x rows) whose maps are largest, then each block drawn with its label.
class CompareBlocks {
 public:
  CompareBlocks(const AppState& state, const UiContext& ui, ImVec2 area)
      : d_(*ui.derived),
        area_(area),
        present_(state.present.active),
        blocks_(1 + int(d_.compare.size())),
        f_(ImGui::GetFontSize()),
        // Presenting, the block labels are in the body font and the blocks closer: the maps get the room.
        gap_(f_ * (present_ ? 0.6f : 1.2f)),
        label_font_(present_ ? nullptr : ui.fonts.heading),
        // Presenting, blocks stacked in a column share the lowest block's column labels: only the
        // last row of blocks keeps that margin.
        shared_bottom_(present_ ? present_label_bottom(*d_.analysis) : 0.0f),
        own_label_(active_step(state) ? active_step(state)->label : std::string()),
        layer_(state.layer) {}

  // Picks the arrangement; returns the maps' area of it (presenting; -1 otherwise).
  float choose() {
    if (present_) choose_presenting();
    else choose_plain();
    return best_area_;
  }
  void draw(AppState& state, const UiContext& ui, const ScaleRange& range);

 private:
  // The label column's width, the other blocks' width and the grid every block draws with (the
  // smallest cell of any block's own).
  struct SideBySide {
    float left = 0, bw = 0;
    PresentGrid like;
  };

  const RunAnalysis* analysis(int b) const { return b == 0 ? d_.analysis.get() : d_.compare[size_t(b - 1)].analysis.get(); }
  bool has_maps(int b) const { return analysis(b) && analysis(b)->run.n_heads() > 0; }
  // "correct (teaching model, layer 0)": what the block is (the step's "label", or its shape),
  // then its model and layer.
  std::string label(int b) const {
    const std::string what = b > 0                  ? d_.compare[size_t(b - 1)].label
                             : !own_label_.empty() ? own_label_
                                                   : "this step: " + describe(d_.run().info, d_.analysis->request.attention);
    return analysis(b) ? what + " (" + block_source(*analysis(b), layer_) + ")" : what;
  }
  float row_height(int rows) const { return (area_.y - gap_ * float(rows - 1) - shared_bottom_) / float(rows); }
  float column_width(int cols, float left = 0) const { return (area_.x - left - gap_ * float(cols - 1)) / float(cols); }
  // The blocks' labels' height over blocks of width bw (in the label font, pushed by the caller).
  float labels_height(float bw) const {
    float lh = 0;
    for (int b = 0; b < blocks_; ++b) lh = std::max(lh, ImGui::CalcTextSize(label(b).c_str(), nullptr, false, bw).y);
    return lh + f_ * 0.5f;
  }
  bool same_tokens() const;
  SideBySide side_by_side(float lh) const;
  float row_need(int r, int c, float lh, float h) const;
  std::vector<float> row_heights(int c, float lh) const;
  float map_area(int c, float lh, const std::vector<float>& hs) const;
  void choose_plain();
  void choose_presenting();
  void draw_block(AppState& state, const UiContext& ui, const ScaleRange& range, int b, ImVec2 origin);

  const Derived& d_;
  const ImVec2 area_;
  const bool present_;
  const int blocks_;
  const float f_, gap_;
  ImFont* const label_font_;
  const float shared_bottom_;
  const std::string own_label_;  // the lesson step's name for block 0 ("" none)
  const int layer_;
  // The arrangement chosen.
  int cols_ = 1;
  float label_h_ = 0, best_area_ = -1;
  bool shared_rows_ = false;  // presenting side by side with one row-label column (side_by_side)
  SideBySide sbs_;
  float w_ = 0;
  std::vector<float> row_h_, row_y_;
};

// Presenting blocks side by side (one row) of the same sentence, held by the width: one column
// of row labels, left of the first block, serves them all (every block draws with one cell
// size, so the rows line up); the other blocks keep no left margin: the maps get the width.
// Only when that makes the maps larger: otherwise each block keeps its own labels.
bool CompareBlocks::same_tokens() const {
  bool same = present_ && blocks_ > 1;
  for (int b = 0; b < blocks_ && same; ++b) same = has_maps(b) && analysis(b)->map_labels == d_.analysis->map_labels;
  return same;
}

CompareBlocks::SideBySide CompareBlocks::side_by_side(float lh) const {
  SideBySide s;
  s.left = present_label_left(*d_.analysis);
  const float height = area_.y - lh;  // one row of blocks, each with its column labels
  for (int round = 0; round < 3; ++round) {  // larger maps, larger labels: a wider column
    s.bw = column_width(blocks_, s.left);
    const float left = present_grid(*d_.analysis, ImVec2(s.bw + s.left, height)).labels.left;
    if (left <= s.left + 0.5f) break;
    s.left = left;
  }
  s.like.cell = -1;
  for (int b = 0; b < blocks_; ++b) {
    const PresentGrid g = present_grid(*analysis(b), ImVec2(b == 0 ? s.bw + s.left : s.bw, height), true, b == 0);
    if (s.like.cell < 0 || g.cell < s.like.cell) s.like = g;
  }
  return s;
}

// Not presenting: the arrangement whose smallest map is largest; labels wrap.
void CompareBlocks::choose_plain() {
  if (label_font_) ImGui::PushFont(label_font_);
  float best_side = -1;
  for (int cols = 1; cols <= blocks_; ++cols) {
    const int rows = (blocks_ + cols - 1) / cols;
    const float bw = column_width(cols), bh = row_height(rows);
    const float lh = labels_height(bw);
    float side = 1e9f;
    for (int b = 0; b < blocks_; ++b) {
      if (!has_maps(b)) continue;
      const RunAnalysis& x = *analysis(b);
      side = std::min(side, explore_grid(x, ImVec2(bw, bh - lh), false).cell * float(x.map_labels.size()));
    }
    if (side > best_side) best_side = side, cols_ = cols, label_h_ = lh;
  }
  if (label_font_) ImGui::PopFont();
}

// The height row r of c columns draws when given `h`.
float CompareBlocks::row_need(int r, int c, float lh, float h) const {
  const float bw = column_width(c);
  float n = lh;
  for (int b = r * c; b < std::min(blocks_, (r + 1) * c); ++b) {
    if (!has_maps(b)) continue;
    const bool lowest = b + c >= blocks_;
    const float extra = lowest ? shared_bottom_ : 0.0f;
    n = std::max(n, lh + present_grid_height(*analysis(b), ImVec2(bw, h - lh + extra), lowest) - extra);
  }
  return n;
}

// Presenting: rows of blocks share the height by need, not equally. A row whose maps are held
// by the width (eight heads side by side) keeps only the height it draws; the rest goes to the
// rows held by their height (a few heads that can grow).
std::vector<float> CompareBlocks::row_heights(int c, float lh) const {
  const int rows = (blocks_ + c - 1) / c;
  std::vector<float> hs(size_t(rows), row_height(rows));
  std::vector<bool> held(size_t(rows), false);
  for (int round = 0; round < 4; ++round) {
    float spare = 0;
    int growing = 0;
    for (int r = 0; r < rows; ++r) {
      if (held[size_t(r)]) continue;
      const float n = row_need(r, c, lh, hs[size_t(r)]);
      // Held by the width: more height would not grow its maps.
      if (row_need(r, c, lh, hs[size_t(r)] + f_ * 4) <= n + 1.0f) spare += hs[size_t(r)] - n, hs[size_t(r)] = n, held[size_t(r)] = true;
      else ++growing;
    }
    if (spare <= 1.0f || growing == 0) break;
    for (int r = 0; r < rows; ++r)
      if (!held[size_t(r)]) hs[size_t(r)] += spare / float(growing);
  }
  return hs;
}

// The maps' total area with c columns and rows of heights `hs`.
float CompareBlocks::map_area(int c, float lh, const std::vector<float>& hs) const {
  const float bw = column_width(c);
  float total = 0;
  for (int b = 0; b < blocks_; ++b) {
    if (!has_maps(b)) continue;
    const RunAnalysis& x = *analysis(b);
    const bool lowest = b + c >= blocks_;
    const float side = present_map_side(x, ImVec2(bw, hs[size_t(b / c)] - lh + (lowest ? shared_bottom_ : 0.0f)), lowest);
    total += float(x.run.n_heads()) * side * side;
  }
  return total;
}

// Presenting: the arrangement with the most map area.
void CompareBlocks::choose_presenting() {
  for (int c = 1; c <= blocks_; ++c) {
    const float lh = labels_height(column_width(c));
    const float total = map_area(c, lh, row_heights(c, lh));
    if (total > best_area_) best_area_ = total, cols_ = c, label_h_ = lh, shared_rows_ = false;
    if (c == blocks_ && same_tokens()) {  // side by side, one row-label column: 1% larger maps at least
      const float shared_lh = labels_height(column_width(c, present_label_left(*d_.analysis)));
      const float side = std::max(side_by_side(shared_lh).like.cell, 0.0f) * float(d_.analysis->map_labels.size());
      float shared_total = 0;
      for (int b = 0; b < blocks_; ++b) shared_total += float(analysis(b)->run.n_heads()) * side * side;
      if (shared_total > best_area_ * 1.01f) best_area_ = shared_total, cols_ = c, label_h_ = shared_lh, shared_rows_ = true;
    }
  }
}

void CompareBlocks::draw(AppState& state, const UiContext& ui, const ScaleRange& range) {
  const int rows = (blocks_ + cols_ - 1) / cols_;
  if (shared_rows_) sbs_ = side_by_side(label_h_);
  w_ = shared_rows_ ? sbs_.bw : column_width(cols_);
  const float h = present_ ? row_height(rows) : (area_.y - gap_ * float(rows - 1)) / float(rows);
  row_h_.assign(size_t(rows), h), row_y_.assign(size_t(rows), 0.0f);
  if (present_ && !shared_rows_) row_h_ = row_heights(cols_, label_h_);
  for (int r = 1; r < rows; ++r) row_y_[size_t(r)] = row_y_[size_t(r - 1)] + row_h_[size_t(r - 1)] + gap_;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int b = 0; b < blocks_; ++b) draw_block(state, ui, range, b, origin);
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area_.y));
}

// Block b: a separating line, its label, then its grid (or why it has none).
void CompareBlocks::draw_block(AppState& state, const UiContext& ui, const ScaleRange& range, int b, ImVec2 origin) {
  const int c = b % cols_;
  // A block's left edge and width: sharing the row labels, the first block also holds their column.
  const float bx = float(c) * (w_ + gap_) + (shared_rows_ && c > 0 ? sbs_.left : 0.0f);
  const float bw = w_ + (shared_rows_ && c == 0 ? sbs_.left : 0.0f), bh = row_h_[size_t(b / cols_)];
  const ImVec2 at(origin.x + bx, origin.y + row_y_[size_t(b / cols_)]);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  if (c > 0) dl->AddLine(ImVec2(at.x - gap_ * 0.5f, at.y), ImVec2(at.x - gap_ * 0.5f, at.y + bh), dim_text_colour(), 1.0f);
  if (b / cols_ > 0 && c == 0)
    dl->AddLine(ImVec2(origin.x, at.y - gap_ * 0.5f), ImVec2(origin.x + area_.x, at.y - gap_ * 0.5f), dim_text_colour(), 1.0f);
  ImGui::SetCursorScreenPos(at);
  if (label_font_) ImGui::PushFont(label_font_);
  ImGui::PushTextWrapPos(at.x + bw - ImGui::GetWindowPos().x);
  ImGui::TextColored(b == 0 ? accent_text() : tone(Tone::secondary), "%s", label(b).c_str());
  ImGui::PopTextWrapPos();
  if (label_font_) ImGui::PopFont();
  ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + label_h_));
  const RunAnalysis* x = analysis(b);
  if (!x) {
    ImGui::PushTextWrapPos(at.x + bw - ImGui::GetWindowPos().x);
    ImGui::TextColored(tone(Tone::error), "%s", d_.compare[size_t(b - 1)].error.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (x->run.n_heads() == 0) return;
  ImGui::PushID(b);
  const std::string prefix = b == 0 ? "grid" : format("compare%d", b);
  if (present_) {
    const bool lowest = b + cols_ >= blocks_;  // no block below: this one shows the column labels
    draw_present_layer_grid(state, ui, *x, d_.generation, ImVec2(bw, bh - label_h_ + (lowest ? shared_bottom_ : 0.0f)), range,
                            prefix.c_str(), false, lowest, !shared_rows_ || b == 0, shared_rows_ ? &sbs_.like : nullptr);
  } else {
    draw_layer_grid(state, ui, *x, d_.generation, ImVec2(w_, bh - label_h_), range, prefix.c_str());
  }
  ImGui::PopID();
}

// Returns the maps' area of the arrangement chosen (presenting); with `measure`, only that (nothing drawn).
float draw_compare(AppState& state, const UiContext& ui, ImVec2 area, const ScaleRange& range, bool measure = false) {
  CompareBlocks blocks(state, ui, area);
  const float best_area = blocks.choose();
  if (!measure) blocks.draw(state, ui, range);
  return best_area;
}

// The layers x heads overview: a row of square tiles per layer, the layer names on the left,
// the head names on top.
float overview_left() { return ImGui::CalcTextSize("L00").x + 8; }
float overview_side(const Derived& d, ImVec2 area) {
  const int layers = d.run().n_layers(), heads = d.run().n_heads(), group = heads_per_group(d.run().info);
  const auto side = [&](float top) {
    return std::max(4.0f, std::min((area.x - overview_left()) / float(heads), (area.y - top) / float(layers)));
  };
  return side(overview_header_height(heads, group, side(overview_header_height(heads, group, FLT_MAX, true)), true));
}

void draw_all_layers(AppState& state, const UiContext& ui, ImVec2 area) {
  const Derived& d = *ui.derived;
  const RunAnalysis& a = *d.analysis;
  if (state.present.active) return draw_present_all_layers(state, ui, d, area, model_range(state, a));
  const int layers = d.run().n_layers(), heads = d.run().n_heads();
  const int group = heads_per_group(d.run().info);
  const float f = ImGui::GetFontSize(), left = overview_left(), side = overview_side(d, area);
  const float top = overview_header_height(heads, group, side, true);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  draw_overview_header(dl, ImVec2(origin.x + left, origin.y), side, heads, group, true);
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
  // The layer itself is chosen in the left column (draw_layer_control); only presenting a
  // lesson, which has none, does the toolbar hold a layer box.
  const auto draw_layer_tools = [&] {
    ImGui::Checkbox("all layers", &state.grid.all_layers);
    if (!state.grid.all_layers && toolbar_layer_control(state, layers)) {
      if (!bare) same_line_if_fits(labelled_width(ImGui::GetFontSize() * 6.5f, "layer"));
      ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
      ImGui::InputInt("layer", &state.layer);
      state.layer = std::clamp(state.layer, 0, layers - 1);
    }
  };
  if (layer_tools && !bare) {
    same_line_if_room("all layers");
    draw_layer_tools();
  }
  const bool overview = state.grid.all_layers && layers > 1;
  const bool compare = !overview && !d.compare.empty();
  if (!overview && !compare && !bare) {
    same_line_if_room("range per head");
    ImGui::Checkbox("range per head", &state.grid.per_head_range);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Off: one colour range for the layer, so a dim head looks dim. On: each head on its own range.");
    if (d.run().n_heads() > 2) {
      same_line_if_fits(order_control_width());
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
  if (!present && !compare && !opened) {
    // Exploring, the colour bar goes across under the maps when they are held by the width.
    const ImVec2 beside(avail.x - bar_w - 12, avail.y), below(avail.x, avail.y - across_h);
    const auto side = [&](ImVec2 a) {
      return overview ? overview_side(d, a) : explore_grid(*d.analysis, a, state.grid.clustered).grid.side;
    };
    across = side(below) > side(beside) * 1.01f;
  }
  const ImVec2 area = across ? ImVec2(avail.x, avail.y - across_h) : ImVec2(avail.x - bar_w - 12, avail.y);
  const ImVec2 start = ImGui::GetCursorScreenPos();
  if (ui.report && !present) {  // the maps' share of their room (tests/gl/model_screenshot_test.cpp)
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
    ui.report->panels.push_back({"grid area", overview ? "overview" : "layer", ImVec2(start.x * fb.x, start.y * fb.y),
                                 ImVec2((start.x + avail.x) * fb.x, (start.y + avail.y) * fb.y)});
  }
  const ScaleRange range = opened    ? layer_range(state, *d.analysis, state.layer)
                           : overview ? model_range(state, *d.analysis)
                           : compare ? compare_range(state, d)
                           : per_head ? scale_range(state.scale, 1.0f)  // the bar: a share of each head's largest
                                      : layer_range(state, *d.analysis, state.layer);
  const bool layer_grid = !opened && !overview && !compare;
  const float cell = !layer_grid ? 1.0f : present ? present_grid(*d.analysis, area).cell : explore_grid(*d.analysis, area, state.grid.clustered).cell;
  if (cell <= 0) return draw_grid_without_room(*d.analysis, area);  // said in place of maps and a colour bar
  if (opened) draw_opened_head(state, ui, *d.analysis, d.generation, area, range);
  else if (overview) draw_all_layers(state, ui, area);
  else if (compare) draw_compare(state, ui, area, range);
  else draw_layer_grid(state, ui, *d.analysis, d.generation, area, range, "grid", per_head, state.grid.clustered);
  const std::string scope = opened ? format("range: layer %d", state.layer)
                            : overview ? "range: all layers" : compare ? "range: shared by all"
                            : per_head ? "range: each head\n(share of its max)"
                                       : format("range: layer %d", state.layer);
  if (across) {  // the caption, then the bar on the same line
    const float f = ImGui::GetFontSize();
    ImGui::SetCursorScreenPos(ImVec2(start.x, start.y + area.y + f * 0.5f));
    std::string caption = scale_caption(range);
    if (!present) caption += ", " + scope.substr(0, scope.find('\n'));
    ImGui::TextDisabled("%s", caption.c_str());
    ImGui::SameLine(0, f);
    draw_colour_bar_across(ui, range, state.scale.colormap, ImVec2(std::min(area.x * 0.45f, f * 24), colour_bar_across_height()));
    return;
  }
  // Exploring, maps held by the height (a 12 x 12 overview) leave width over: the bar follows the
  // maps rather than the panel's edge.
  float used_w = area.x;
  if (!present && !opened && !compare) {
    if (overview) {
      used_w = overview_left() + float(d.run().n_heads()) * overview_side(d, area);
    } else {
      const PresentGrid g = explore_grid(*d.analysis, area, state.grid.clustered);
      used_w = g.labels.left + float(g.grid.cols) * (g.cell * float(d.analysis->map_labels.size()) + grid_gap());
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(start.x + std::min(area.x, used_w) + 12, start.y));
  ImGui::BeginGroup();
  if (layer_tools && bare) draw_layer_tools();
  if (present) ImGui::TextDisabled("%s", scale_caption(range).c_str());
  else ImGui::TextDisabled("%s\n%s", scale_caption(range).c_str(), scope.c_str());
  // Under the caption, the bar and its end ticks' labels inside the area.
  const float below = start.y + area.y - ImGui::GetCursorScreenPos().y - ImGui::GetFontSize() * 0.2f;
  const float bar_h = present ? area.y * 0.6f : std::min(below, 420.0f);
  draw_colour_bar(ui, range, state.scale.colormap, ImVec2(bar_w, bar_h));
  ImGui::EndGroup();
}

}  // namespace hs::gui
