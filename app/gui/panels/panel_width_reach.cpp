// The Head width view's keys and pattern parts (width_parts.h). Sections, in order: the grid of
// map tiles both parts draw (tile_grid, draw_tile), the keys part (a block of tiles per result,
// the numbers table), the pattern part (its controls, the fit's tiles and error chart).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "app/gui/panels/width_parts.h"
#include "app/gui/widgets/chart.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/theme.h"
#include "core/analysis/target_pattern.h"
#include "core/render/shown_map.h"

namespace hs::gui {
namespace {

// ---- tiles: small maps with a title, their unreachable key columns dimmed ----

struct Tile {
  std::vector<std::string> titles;          // longest first: the first that fits the tile is shown
  std::string tooltip;                      // the title's hover text
  HeatmapSpec spec;
  const std::vector<int>* reachable = nullptr;  // null: no marks (a target)
};

struct TileGrid {
  int cols = 1;
  float side = 0;  // the map's box, labels included
};

float tile_title_h() { return ImGui::GetTextLineHeightWithSpacing() + ImGui::GetFontSize() * 0.3f; }
float tile_gap() { return ImGui::GetFontSize() * 0.8f; }

// The columns that give `n` tiles the largest maps in `area`.
TileGrid tile_grid(int n, ImVec2 area) {
  TileGrid best;
  for (int cols = 1; cols <= std::max(1, n); ++cols) {
    const int rows = (n + cols - 1) / cols;
    const float side = std::min((area.x - tile_gap() * float(cols - 1)) / float(cols),
                                (area.y - float(rows) * tile_title_h() - tile_gap() * float(rows - 1)) / float(rows));
    if (side > best.side) best = {cols, side};
  }
  return best;
}

// Dims the key columns no query can make its top key and marks the others above their column.
void mark_keys(const HeatmapHit& hit, int keys, const std::vector<int>& reachable) {
  if (keys <= 0 || hit.cells_max.x <= hit.cells_min.x) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float w = (hit.cells_max.x - hit.cells_min.x) / float(keys), mark = std::max(3.0f, ImGui::GetFontSize() * 0.28f);
  for (int j = 0; j < keys; ++j) {
    const float x0 = hit.cells_min.x + w * float(j);
    if (std::binary_search(reachable.begin(), reachable.end(), j)) {
      const float cx = x0 + w * 0.5f, top = hit.cells_min.y - 2;
      dl->AddTriangleFilled(ImVec2(cx - std::min(mark, w * 0.5f), top - mark), ImVec2(cx + std::min(mark, w * 0.5f), top - mark),
                            ImVec2(cx, top), accent_colour());
    } else {
      dl->AddRectFilled(ImVec2(x0, hit.cells_min.y), ImVec2(x0 + w, hit.cells_max.y), page(0.68f));
    }
  }
}

// A tile at `at`: its title (cut to fit, whole when hovered), the map, the marks. Presenting, its
// labels are never under the projector's floor (they thin out instead).
HeatmapHit draw_tile(const UiContext& ui, const Tile& t, ImVec2 at, float side, float room, int keys, bool present) {
  ImGui::SetCursorScreenPos(at);
  std::string title = t.titles.back();
  for (const std::string& candidate : t.titles)
    if (ImGui::CalcTextSize(candidate.c_str()).x <= room) {
      title = candidate;
      break;
    }
  while (title.size() > 4 && ImGui::CalcTextSize(title.c_str()).x > room) title = title.substr(0, title.size() - 4) + "...";
  ImGui::TextUnformatted(title.c_str());
  if (ImGui::IsItemHovered() && !t.tooltip.empty()) ImGui::SetTooltip("%s", t.tooltip.c_str());
  ImGui::SetCursorScreenPos(ImVec2(at.x, at.y + tile_title_h()));
  HeatmapSpec spec = t.spec;
  spec.label_font_max = ImGui::GetFontSize() * 0.85f;
  if (present) spec.label_font_min = present_label_min(), spec.label_font_max = std::max(spec.label_font_max, spec.label_font_min);
  // Presenting, a tile too small to label every one of its keys at the projector's label size
  // draws none (a thumbnail: its title and marks carry it) rather than every k-th: a slide labels
  // every row and column of the maps it labels (layout_rules.h, "unlabelled").
  if (present && spec.col_labels && keys > 0) {
    const LabelFit first = fit_labels(*spec.col_labels, ImGui::GetFont(), side / float(keys), spec.label_font_min, spec.label_font_max);
    const LabelFit fit = fit_labels(*spec.col_labels, ImGui::GetFont(), std::max(1.0f, side - first.bottom) / float(keys),
                                    spec.label_font_min, spec.label_font_max);
    if (fit.step > 1) spec.col_labels = nullptr, spec.row_labels = nullptr;
  }
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(side, side));
  if (t.reachable) mark_keys(hit, keys, *t.reachable);
  return hit;
}

// A hovered cell's query, key, weight and whether some query can make the key its top key.
void width_tile_tooltip(const Tile& t, const HeatmapHit& hit, const std::vector<std::string>* tokens) {
  if (!hit.hovered || hit.row < 0 || !tokens || size_t(hit.col) >= tokens->size() || size_t(hit.row) >= tokens->size()) return;
  const bool some = t.reachable && std::binary_search(t.reachable->begin(), t.reachable->end(), hit.col);
  ImGui::SetTooltip("%s\nquery '%s' -> key '%s': %s%s", t.titles.front().c_str(), display_token(*tokens, size_t(hit.row)).c_str(),
                    display_token(*tokens, size_t(hit.col)).c_str(), format_weight((*t.spec.map)(hit.row, hit.col)).c_str(),
                    !t.reachable ? "" : some ? "\nsome query can make this key its top key" : "\nno query can make this key its top key");
}

// The height `n` tiles use in `area` (their arrangement's rows).
float tiles_height(int n, ImVec2 area) {
  const TileGrid g = tile_grid(n, area);
  return float((n + g.cols - 1) / g.cols) * (g.side + tile_title_h() + tile_gap()) - tile_gap();
}

// Tiles in the arrangement that gives the largest maps; returns the height used.
float draw_tiles(const UiContext& ui, const std::vector<Tile>& tiles, ImVec2 area, int keys,
                 const std::vector<std::string>* tokens, bool present) {
  const TileGrid g = tile_grid(int(tiles.size()), area);
  if (g.side <= 8) return 0;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  int rows = 0;
  for (size_t i = 0; i < tiles.size(); ++i) {
    const int r = int(i) / g.cols, c = int(i) % g.cols;
    rows = r + 1;
    const ImVec2 at(origin.x + float(c) * (g.side + tile_gap()), origin.y + float(r) * (g.side + tile_title_h() + tile_gap()));
    // A title may run into the gap after its map, never past the area.
    const float room = std::min(g.side + tile_gap() * 0.6f, origin.x + area.x - at.x);
    const HeatmapHit hit = draw_tile(ui, tiles[i], at, g.side, room, keys, present);
    width_tile_tooltip(tiles[i], hit, tokens);
  }
  const float used = float(rows) * (g.side + tile_title_h() + tile_gap()) - tile_gap();
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + used));
  return used;
}

// Presenting: the first `shown` tiles as a grid sharing one set of token labels (row labels left
// of its first column, column labels under each column's lowest map; present_grid.h), every
// label at the projector's size (layout_rules.h, "unlabelled"). The most tiles that keep every
// label: `shown` 0 when not even one does.
struct WidthSharedGrid {
  PresentGrid grid;
  int shown = 0;
};

WidthSharedGrid width_shared_grid(int n, const std::vector<std::string>& labels, ImVec2 area) {
  WidthSharedGrid out;
  for (int k = n; k >= 1; --k) {
    const PresentGrid g = layout_present_grid(k, 1, int(labels.size()), labels, ImGui::GetFont(), area, tile_title_h(), tile_gap(),
                                              present_label_min(), present_label_max());
    if (g.cell > 0 && g.labels.step == 1) return {g, k};
  }
  return out;
}

// Draws the grid of width_shared_grid; returns the height used.
float draw_tiles_shared(const UiContext& ui, const std::vector<Tile>& tiles, const WidthSharedGrid& w, int keys,
                        const std::vector<std::string>& tokens) {
  const PresentGrid& g = w.grid;
  const float side = g.cell * float(tokens.size()), step_y = tile_title_h() + side + tile_gap();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  for (int i = 0; i < w.shown && size_t(i) < tiles.size(); ++i) {
    const int r = i / g.grid.cols, c = i % g.grid.cols;
    const ImVec2 at(origin.x + g.labels.left + float(c) * (side + tile_gap()), origin.y + float(r) * step_y);
    const Tile& t = tiles[size_t(i)];
    ImGui::SetCursorScreenPos(at);
    std::string title = t.titles.back();
    for (const std::string& candidate : t.titles)
      if (ImGui::CalcTextSize(candidate.c_str()).x <= side + tile_gap() * 0.6f) {
        title = candidate;
        break;
      }
    ImGui::TextUnformatted(title.c_str());
    HeatmapSpec spec = t.spec;
    spec.row_labels = spec.col_labels = &tokens;
    share_labels(spec, g, i, w.shown);
    const float x = spec.row_labels ? at.x - g.labels.left : at.x;
    ImGui::SetCursorScreenPos(ImVec2(x, at.y + tile_title_h()));
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(at.x + side - x, side + (spec.col_labels ? g.labels.bottom : 0)));
    if (t.reachable) mark_keys(hit, keys, *t.reachable);
    width_tile_tooltip(t, hit, &tokens);
  }
  const int rows = (w.shown + g.grid.cols - 1) / g.grid.cols;
  const float used = float(rows) * step_y - tile_gap() + g.labels.bottom;
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + used));
  return used;
}

std::string keys_text(size_t reachable, int keys) { return format("%zu of %d keys", reachable, keys); }

// ---- the keys part ----

std::vector<Tile> head_tiles(const AppState& state, const RunAnalysis& a, uint64_t version, const char* prefix) {
  const int layer = std::clamp(state.layer, 0, a.run.n_layers() - 1), T = a.run.n_tokens();
  std::vector<Tile> tiles;
  for (int h = 0; h < a.run.n_heads(); ++h) {
    const HeadReach& r = a.reach[size_t(layer)][size_t(h)];
    const Map& m = a.run.attention[size_t(layer)][size_t(h)];  // [T, T]
    Tile t;
    const std::string keys = format("h%d \xC2\xB7 %s", h, keys_text(r.reachable_keys.size(), T).c_str());
    if (r.ranked_rows > 0) t.titles.push_back(keys + format(" \xC2\xB7 rows agree %d/%d", r.agreeing_rows, r.ranked_rows));
    t.titles.push_back(keys);
    t.titles.push_back(format("h%d \xC2\xB7 %zu keys", h, r.reachable_keys.size()));
    t.titles.push_back(format("%zu keys", r.reachable_keys.size()));
    t.tooltip = format("%s: some query can make %s its top key (marked above the map); the dimmed columns no query can.\n"
                       "Rows agree: query rows (with 3 or more visible keys) that rank their keys as the last row does, "
                       "or exactly reversed.",
                       head_name(layer, h, a.run.n_layers()).c_str(), keys_text(r.reachable_keys.size(), T).c_str());
    t.spec = heatmap_spec(format("%s width L%d h%d", prefix, layer, h), map_version(version, layer, h), head_map(a.run, layer, h),
                          scale_range(state.scale, m.maxCoeff()), state.scale.colormap, layer, h);
    t.spec.col_labels = &a.map_labels;
    t.reachable = &r.reachable_keys;
    tiles.push_back(std::move(t));
  }
  return tiles;
}

// "8 heads of width 1 (random weights, seed 0; d_model 8, 11 tokens, 288 parameters)": what the
// block is, its model (block_source) and its numbers.
std::string block_label(const RunAnalysis& a, int layer) {
  const ModelInfo& i = a.run.info;
  return format("%d head%s of width %d (%s; d_model %d, %d tokens, %s parameters)", i.n_heads, i.n_heads == 1 ? "" : "s", i.d_head,
                block_source(a, layer).c_str(), i.d_model, a.run.n_tokens(), format_count(i.param_count).c_str());
}

// Each head's numbers: reachable keys, rows that agree, and (where computed) the score rank.
void draw_reach_table(const AppState& state, const RunAnalysis& a, ImVec2 size) {
  const int layer = std::clamp(state.layer, 0, a.run.n_layers() - 1), T = a.run.n_tokens();
  const bool ranks = size_t(layer) < a.spectrum.size() && !a.spectrum[size_t(layer)].empty() &&
                     a.spectrum[size_t(layer)][0].singular_values.size() > 0;
  const ImGuiTableFlags flags =
      ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_ScrollX | ImGuiTableFlags_SizingFixedFit;
  if (!ImGui::BeginTable("reach", ranks ? 4 : 3, flags, size)) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("head");
  ImGui::TableSetupColumn("reachable keys");
  ImGui::TableSetupColumn("rows agree");
  if (ranks) ImGui::TableSetupColumn(format("rank (\xE2\x89\xA4 %d)", a.run.info.d_head).c_str());
  ImGui::TableHeadersRow();
  for (int h = 0; h < a.run.n_heads(); ++h) {
    const HeadReach& r = a.reach[size_t(layer)][size_t(h)];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%s", head_name(layer, h, a.run.n_layers()).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%zu of %d", r.reachable_keys.size(), T);
    ImGui::TableNextColumn();
    if (r.ranked_rows > 0) ImGui::Text("%d of %d", r.agreeing_rows, r.ranked_rows);
    else ImGui::TextDisabled("-");
    if (ranks) {
      ImGui::TableNextColumn();
      ImGui::Text("%d", a.spectrum[size_t(layer)][size_t(h)].score_rank);
    }
  }
  ImGui::EndTable();
}


// ---- the pattern part ----

enum class PatternKind { previous, first, token, permutation, head, file };

// A pattern name (target_pattern.h) as the controls show it: the kind and its numbers.
struct PatternChoice {
  PatternKind kind = PatternKind::previous;
  int a = 0, b = 0;  // token: a; permutation: a = seed; head: a = layer, b = head
  std::string file;
};

PatternChoice parse_choice(const std::string& spec) {
  PatternChoice c;
  const auto number = [&](size_t at) { return std::max(0, std::atoi(spec.c_str() + std::min(at, spec.size()))); };
  if (spec == "first") c.kind = PatternKind::first;
  else if (spec.rfind("token:", 0) == 0) c.kind = PatternKind::token, c.a = number(6);
  else if (spec.rfind("permutation", 0) == 0) c.kind = PatternKind::permutation, c.a = number(12);
  else if (spec.rfind("head:", 0) == 0) c.kind = PatternKind::head, c.a = number(5), c.b = number(spec.find(':', 5) + 1);
  else if (spec != "previous") c.kind = PatternKind::file, c.file = spec;
  return c;
}

std::string spec_of(const PatternChoice& c) {
  switch (c.kind) {
    case PatternKind::previous: return "previous";
    case PatternKind::first: return "first";
    case PatternKind::token: return format("token:%d", c.a);
    case PatternKind::permutation: return format("permutation:%d", c.a);
    case PatternKind::head: return format("head:%d:%d", c.a, c.b);
    case PatternKind::file: return c.file;
  }
  return "previous";
}

// The target's kind and numbers; a change becomes the view's pattern (and so a new fit).
void draw_pattern_controls(AppState& state, const RunAnalysis& a) {
  PatternChoice c = parse_choice(state.width.show);
  const float f = ImGui::GetFontSize();
  const char* kinds[] = {"previous token", "first token", "one token", "random permutation", "a head's map", "from a file"};
  int kind = int(c.kind);
  ImGui::SetNextItemWidth(f * 11);
  ImGui::Combo("target", &kind, kinds, c.kind == PatternKind::file ? 6 : 5);
  if (PatternKind(kind) != c.kind) c = PatternChoice{PatternKind(kind), c.kind == PatternKind::head ? 0 : c.a, 0, c.file};
  const auto number = [&](const char* label, int& v, int hi) {
    ImGui::SameLine();
    ImGui::SetNextItemWidth(f * 6);
    ImGui::InputInt(label, &v);
    v = std::clamp(v, 0, hi);
  };
  const int T = a.run.n_tokens();
  if (c.kind == PatternKind::token) number("token", c.a, T - 1);
  if (c.kind == PatternKind::permutation) number("seed", c.a, 1 << 30);
  if (c.kind == PatternKind::head) number("layer", c.a, a.run.n_layers() - 1), number("head", c.b, a.run.n_heads() - 1);
  if (c.kind == PatternKind::file) ImGui::SameLine(), ImGui::TextDisabled("%s", c.file.c_str());
  if (c.kind == PatternKind::token && c.a < T) ImGui::SameLine(), ImGui::TextDisabled("'%s'", display_token(a.run.tokens, size_t(c.a)).c_str());
  state.width.show = spec_of(c);
}

std::vector<Tile> fit_tiles(const AppState& state, const PatternFit& fit, const FitStatus& st,
                            const std::vector<std::string>& labels) {
  const int T = int(fit.target.rows());
  std::vector<Tile> tiles;
  Tile target;
  target.titles = {"target: " + st.title, "target"};
  target.tooltip = format("The pattern to draw, smoothed: (1 - %g) P + %g / T, since a softmax reaches a one-hot row only at "
                          "infinite scores.", kFitSmoothing, kFitSmoothing);
  target.spec = heatmap_spec("fit target", st.serial, fit.target, scale_range(state.scale, fit.target.maxCoeff()),
                             state.scale.colormap);
  target.spec.col_labels = &labels;
  tiles.push_back(std::move(target));
  for (const WidthFit& w : fit.fits) {
    Tile t;
    t.titles = {format("width %d \xC2\xB7 error %.3f \xC2\xB7 %s", w.width, double(w.error), keys_text(w.reachable_keys.size(), T).c_str()),
                format("width %d \xC2\xB7 error %.3f", w.width, double(w.error)), format("d %d: %.3f", w.width, double(w.error)),
                format("%d: %.2f", w.width, double(w.error))};
    t.tooltip = format("The closest map a head of width %d makes to the target: softmax(Q K^T) with Q, K of %d x %d, fitted "
                       "by cross-entropy. Error: mean over rows of the total variation to the target (0: exact).",
                       w.width, T, w.width);
    t.spec = heatmap_spec(format("fit width %d", w.width), st.serial, w.fitted, scale_range(state.scale, w.fitted.maxCoeff()),
                          state.scale.colormap);
    t.spec.col_labels = &labels;
    t.reachable = &w.reachable_keys;
    tiles.push_back(std::move(t));
  }
  return tiles;
}

void draw_error_chart(const PatternFit& fit, ImVec2 size) {
  ChartSpec spec;
  spec.title = "error per width (mean per-row total variation to the target; 0: exact)";
  spec.x_caption = "head width d";
  ChartSeries error{"error", {}, tone_u32(Tone::series_orange)};
  for (const WidthFit& w : fit.fits) spec.x_labels.push_back(std::to_string(w.width)), error.values.push_back(w.error);
  spec.series = {error};
  draw_chart(spec, size);
}

}  // namespace

void draw_width_keys(AppState& state, const UiContext& ui, ImVec2 area) {
  const Derived& d = *ui.derived;
  std::vector<std::pair<std::string, const RunAnalysis*>> blocks = {{block_label(*d.analysis, state.layer), d.analysis.get()}};
  for (const CompareResult& c : d.compare)
    if (c.analysis) blocks.push_back({block_label(*c.analysis, state.layer), c.analysis.get()});
  for (const auto& b : blocks) {
    if (b.second->reach.empty()) {
      ImGui::TextWrapped("Which keys a head can pick is computed while the keys fit the budget (layers x key/value heads x "
                         "T^2 x (d_head + 1)^2 up to %.0e) and whole maps are kept; this run has none.", kReachBudget);
      return;
    }
  }
  const float f = ImGui::GetFontSize();
  const bool table = !state.present.active && blocks.size() == 1 && area.x > f * 40;
  // The table as wide as its header row (it scrolls sideways past a third of the view).
  float table_need = 0;
  for (const char* header : {"head 00", "reachable keys", "rows agree", "rank (\xE2\x89\xA4 000)"})
    table_need += ImGui::CalcTextSize(header).x + ImGui::GetStyle().CellPadding.x * 2 + 2;
  const float table_w = table ? std::min(table_need + ImGui::GetStyle().ScrollbarSize, area.x * 0.34f) : 0;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float label_h = ImGui::GetTextLineHeightWithSpacing() + f * 0.4f, block_gap = f * 0.5f;
  const float tiles_w = area.x - table_w - (table ? f : 0);
  // Blocks share the height by need: one whose maps the width holds (eight heads in a row) keeps
  // only the height it draws, and the rest goes to the blocks that can grow.
  const size_t n = blocks.size();
  std::vector<float> h(n, (area.y - block_gap * float(n - 1)) / float(n));
  std::vector<bool> held(n, false);
  for (int round = 0; round < 3; ++round) {
    float spare = 0;
    int growing = 0;
    for (size_t b = 0; b < n; ++b) {
      if (held[b]) continue;
      const float need = label_h + tiles_height(blocks[b].second->run.n_heads(), ImVec2(tiles_w, h[b] - label_h));
      if (need < h[b] - 1) spare += h[b] - need, h[b] = need, held[b] = true;
      else ++growing;
    }
    if (growing == 0 || spare <= 0) break;
    for (size_t b = 0; b < n; ++b)
      if (!held[b]) h[b] += spare / float(growing);
  }
  // Presenting: the blocks side by side, each showing as many of its heads as keep every token
  // label at the projector's size (a slide labels every row and column; the block's label says
  // which heads it shows).
  if (state.present.active && tiles_w > f * 10) {
    const float bw_present = (tiles_w - f * float(n - 1)) / float(n);
    for (size_t b = 0; b < n; ++b) {
      const RunAnalysis& a = *blocks[b].second;
      const float x = origin.x + float(b) * (bw_present + f);
      ImGui::SetCursorScreenPos(ImVec2(x, origin.y));
      // Room for a label of up to three lines, then the tiles.
      const float label_room = ImGui::GetTextLineHeightWithSpacing() * 3 + f * 0.4f;
      const WidthSharedGrid w = width_shared_grid(a.run.n_heads(), a.map_labels, ImVec2(bw_present, area.y - label_room));
      std::string label = blocks[b].first;
      if (w.shown > 0 && w.shown < a.run.n_heads()) {
        // The heads not shown keep their number on the slide: the range of keys every head reaches.
        const int layer = std::clamp(state.layer, 0, a.run.n_layers() - 1);
        size_t lo = size_t(a.run.n_tokens()), hi = 0;
        for (const HeadReach& r : a.reach[size_t(layer)]) lo = std::min(lo, r.reachable_keys.size()), hi = std::max(hi, r.reachable_keys.size());
        label += w.shown == 1 ? format(", h0 shown") : format(", h0 to h%d shown", w.shown - 1);
        label += lo == hi ? format("; all %d heads: %zu of %d keys", a.run.n_heads(), lo, a.run.n_tokens())
                          : format("; all %d heads: %zu to %zu of %d keys", a.run.n_heads(), lo, hi, a.run.n_tokens());
      }
      ImGui::PushTextWrapPos(x + bw_present - ImGui::GetWindowPos().x);
      ImGui::TextColored(b == 0 ? accent_text() : tone(Tone::secondary), "%s", label.c_str());
      ImGui::PopTextWrapPos();
      ImGui::SetCursorScreenPos(ImVec2(x, ImGui::GetCursorScreenPos().y + f * 0.4f));
      const std::vector<Tile> tiles = head_tiles(state, a, d.generation, b == 0 ? "keys" : format("keys%zu", b).c_str());
      if (w.shown > 0) draw_tiles_shared(ui, tiles, w, a.run.n_tokens(), a.map_labels);
      else draw_tiles(ui, tiles, ImVec2(bw_present, area.y - label_room), a.run.n_tokens(), &a.map_labels, true);
    }
    ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
    return;
  }
  std::vector<float> bx(n, origin.x), by(n, origin.y), bw(n, tiles_w);
  for (size_t b = 1; b < n; ++b) by[b] = by[b - 1] + h[b - 1] + block_gap;
  for (size_t b = 0; b < n; ++b) {
    const RunAnalysis& a = *blocks[b].second;
    ImGui::SetCursorScreenPos(ImVec2(bx[b], by[b]));
    ImGui::PushTextWrapPos(bx[b] + bw[b] - ImGui::GetWindowPos().x);
    ImGui::TextColored(b == 0 ? accent_text() : tone(Tone::secondary), "%s", blocks[b].first.c_str());
    ImGui::PopTextWrapPos();
    const float used = ImGui::GetCursorScreenPos().y - by[b] + f * 0.4f;
    ImGui::SetCursorScreenPos(ImVec2(bx[b], by[b] + used));
    const std::vector<Tile> tiles = head_tiles(state, a, d.generation, b == 0 ? "keys" : format("keys%zu", b).c_str());
    draw_tiles(ui, tiles, ImVec2(bw[b], h[b] - used), a.run.n_tokens(), &a.map_labels, state.present.active);
  }
  if (table) {
    ImGui::SetCursorScreenPos(ImVec2(origin.x + area.x - table_w, origin.y));
    draw_reach_table(state, *d.analysis, ImVec2(table_w, area.y));
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

void draw_width_pattern(AppState& state, const UiContext& ui, ImVec2 area) {
  const Derived& d = *ui.derived;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  draw_pattern_controls(state, *d.analysis);
  const FitStatus& st = ui.fit;
  const float f = ImGui::GetFontSize();
  if (!st.is_for(state.width.show, d.generation)) {
    if (!state.commands.has<FitPattern>()) state.commands.push(FitPattern{});
    ImGui::TextDisabled("fitting...");
    return;
  }
  if (st.running) {
    const float frac = st.total > 0 ? float(st.done) / float(st.total) : 0.0f;
    ImGui::ProgressBar(frac, ImVec2(f * 14, 0), format("fitting: %d / %d steps", st.done, st.total).c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) state.commands.push(CancelFit{});
    return;
  }
  if (!st.error.empty()) {
    ImGui::PushTextWrapPos(origin.x + area.x - ImGui::GetWindowPos().x);
    ImGui::TextColored(tone(Tone::error), "%s", st.error.c_str());
    ImGui::PopTextWrapPos();
    return;
  }
  if (!st.result) return;
  if (st.result->cancelled) {
    ImGui::TextColored(tone(Tone::warning), "Cancelled after %zu widths.", st.result->fits.size());
    ImGui::SameLine();
    if (ImGui::Button("Fit again")) state.commands.push(FitPattern{});
  }
  // The maps first, with room kept for a chart of seven lines; the chart takes what they leave.
  const float top = ImGui::GetCursorScreenPos().y - origin.y;
  const float chart_min = st.result->fits.empty() ? 0 : std::min(f * 7, (area.y - top) * 0.3f);
  const std::vector<Tile> tiles = fit_tiles(state, *st.result, st, d.analysis->map_labels);
  const float used = draw_tiles(ui, tiles, ImVec2(area.x, area.y - top - chart_min), int(st.result->target.rows()),
                                &d.analysis->map_labels, state.present.active);
  const float chart_h = std::min(area.y - top - used, f * 14);
  if (chart_min > 0) draw_error_chart(*st.result, ImVec2(std::min(area.x, f * 36), chart_h));
}

}  // namespace hs::gui
