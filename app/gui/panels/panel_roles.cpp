// Head roles: what each head does (core/analysis/head_roles.h). A layers x heads table of every
// role score and label, sortable by any column and filtered by label, beside one small
// layers x heads heatmap per role; clicking a row or a cell opens that head's map. The scores are
// computed with the run by the worker (RunAnalysis::roles), never here.
#include <algorithm>
#include <cmath>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/grid_layout.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"

namespace hs::gui {
namespace {

constexpr Colormap kRoleColours = Colormap::viridis;
constexpr int kColumns = 3 + kHeadRoleCount;  // layer, head, role label, the scores

// The filter choices: every head, then each label a head can carry.
// "" (every head), then every label core gives heads (head_roles.h).
const std::vector<std::string>& filter_labels() {
  static const std::vector<std::string> labels = [] {
    std::vector<std::string> v = {""};
    for (const std::string& l : head_labels()) v.push_back(l);
    return v;
  }();
  return labels;
}

// The label the "show" filter keeps ("" every head).
const std::string& filter_label(const AppState& state) {
  return filter_labels()[size_t(std::clamp(state.roles.filter, 0, int(filter_labels().size()) - 1))];
}

// [layers, heads] of one role; unmeasured heads as 0 (their tooltip says so).
Map role_map(const HeadRoles& roles, HeadRole role) {
  Map m = Map::Zero(roles.n_layers(), roles.n_heads());  // [L, H]
  for (int l = 0; l < roles.n_layers(); ++l)
    for (int h = 0; h < roles.n_heads(); ++h) {
      const float v = roles.scores[size_t(l)][size_t(h)][role];
      m(l, h) = std::isnan(v) ? 0.0f : v;
    }
  return m;
}

// `selected`: the row's highlight covers the cell's colour, so the text keeps the theme's colour
// (a dark digit chosen for a yellow cell is unreadable on the highlight).
// `chance`: what uniform attention scores (NaN: unknown), drawn as a tick across the cell's width
// (0 at the left edge, 1 at the right) and said in the tooltip.
void score_cell(float v, bool selected, float chance, float margin, float row_h) {
  if (std::isnan(v)) {
    ImGui::TextDisabled("%s", kNotMeasuredMark);
    return;
  }
  const ImVec2 p = ImGui::GetCursorScreenPos();
  const float w = ImGui::GetContentRegionAvail().x;
  ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, colormap_u32(kRoleColours, v, 0.85f));
  if (!selected) ImGui::PushStyleColor(ImGuiCol_Text, text_colour_on(kRoleColours, v));
  ImGui::Text("%.2f", double(v));
  if (!std::isnan(chance)) {
    const float x = p.x + 1 + std::clamp(chance, 0.0f, 1.0f) * std::max(w - 2, 1.0f);
    const ImU32 c = ImGui::ColorConvertFloat4ToU32(ImGui::GetStyleColorVec4(ImGuiCol_Text));
    ImGui::GetWindowDrawList()->AddLine(ImVec2(x, p.y + row_h * 0.62f), ImVec2(x, p.y + row_h - 2), c, 2.0f);
  }
  if (!selected) ImGui::PopStyleColor();
  // The row's Selectable (spanning every column) holds the hover: ask the mouse, not the item.
  if (!std::isnan(chance) && ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p, ImVec2(p.x + w, p.y + row_h)))
    ImGui::SetTooltip("%.3f; chance %.3f (uniform attention over the keys each query sees: the tick); %s", double(v),
                      double(chance), v >= chance + margin ? "clears chance by the margin" : "within the margin of chance");
}

// The column a table sorted by `by` ranks on, as its header says it.
const char* sort_column_name(int by) {
  if (by == kSortByLayer) return "layer";
  if (by == kSortByHead) return "head";
  if (by == kSortByLabel) return "role";
  return head_role_name(HeadRole(by));
}

// What the table shows: its rows (ranked) and what they are ranked by.
struct ShownRows {
  int total = 0;       // heads the filter keeps
  int shown = 0;       // rows drawn
  int by = 0;          // the sort column (a HeadRole or kSortBy...)
  bool descending = false;
};

// Every row (the header too) is `row_h` tall, so a table `row_h` times k tall shows k whole rows.
// `max_rows` >= 0 (presenting): the first `max_rows` heads in the table's order, and no scrolling;
// otherwise every head, scrolling down.
ShownRows roles_table(AppState& state, const HeadRoles& roles, ImVec2 size, bool scroll_x, float row_h, int max_rows = -1) {
  // Fixed widths that fit each header (and its sort arrow), scrolling sideways only when the panel
  // is narrower than that.
  const bool all_rows = max_rows < 0;
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | (all_rows ? ImGuiTableFlags_ScrollY : 0) |
                                (scroll_x ? ImGuiTableFlags_ScrollX : 0) | ImGuiTableFlags_BordersInnerV |
                                ImGuiTableFlags_SizingFixedFit;
  // The column the session or lesson step opens the table sorted by: ImGui applies a column's
  // DefaultSort to a table it has not seen, so each opening sort is a table of its own (the
  // default one keeps the name "roles" and the sort a person last clicked).
  const int opening = state.roles.sort;
  const std::string id = opening == kSortByLayer ? std::string("roles") : format("roles sorted %d", opening);
  ShownRows out;
  if (!ImGui::BeginTable(id.c_str(), kColumns, flags, all_rows ? size : ImVec2(size.x, 0))) return out;
  const auto first = [&](int column) { return column == opening ? ImGuiTableColumnFlags_DefaultSort : 0; };
  ImGui::TableSetupScrollFreeze(2, 1);
  const float arrow = ImGui::GetFontSize() * 1.2f;
  const auto width = [&](const char* header) { return ImGui::CalcTextSize(header).x + arrow; };
  ImGui::TableSetupColumn("layer", first(kSortByLayer), width("layer"), ImGuiID(kSortByLayer));
  ImGui::TableSetupColumn("head", first(kSortByHead), width("head"), ImGuiID(kSortByHead));
  ImGui::TableSetupColumn("role", first(kSortByLabel), width("induction"), ImGuiID(kSortByLabel));
  for (int r = 0; r < kHeadRoleCount; ++r)
    ImGui::TableSetupColumn(head_role_name(HeadRole(r)), ImGuiTableColumnFlags_PreferSortDescending | first(r),
                            width(head_role_name(HeadRole(r))), ImGuiID(r));
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers, row_h);
  for (int c = 0; c < kColumns; ++c) {
    ImGui::TableSetColumnIndex(c);
    ImGui::TableHeader(ImGui::TableGetColumnName(c));
    if (c >= 3 && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", head_role_definition(HeadRole(c - 3)));
  }
  int by = opening;
  bool descending = opening >= 0;  // scores highest first
  if (const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
    by = int(specs->Specs[0].ColumnUserID);
    descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
  }
  const std::vector<HeadIndex> ranked = rank_heads(roles, by, descending, filter_label(state));
  out = {int(ranked.size()), all_rows ? int(ranked.size()) : std::min(int(ranked.size()), max_rows), by, descending};
  for (int row = 0; row < out.shown; ++row) {
    const HeadIndex& i = ranked[size_t(row)];
    const HeadRoleScores& s = roles.scores[size_t(i.layer)][size_t(i.head)];
    ImGui::TableNextRow(0, row_h);
    ImGui::TableNextColumn();
    const bool selected = i.layer == state.layer && i.head == state.head;
    if (ImGui::Selectable(format("%d##role-row-%d-%d", i.layer, i.layer, i.head).c_str(), selected,
                          ImGuiSelectableFlags_SpanAllColumns))
      open_head(state, i.layer, i.head);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("click: open L%d h%d's map", i.layer, i.head);
    ImGui::TableNextColumn();
    ImGui::Text("%d", i.head);
    ImGui::TableNextColumn();
    const std::string& label = roles.label[size_t(i.layer)][size_t(i.head)];
    ImGui::TextUnformatted(head_label_text(label));
    for (int r = 0; r < kHeadRoleCount; ++r) {
      ImGui::TableNextColumn();
      score_cell(s.score[r], selected, roles.chance_of(i.layer, HeadRole(r)), roles.options.chance_margin, row_h);
    }
  }
  ImGui::EndTable();
  return out;
}

// Presenting, under a table that shows only its first rows: how many heads there are, in what
// order, and where to see them all.
std::string more_heads_text(int shown, int total, int by, bool descending) {
  const std::string order = by >= 0 ? format("%s %s first", descending ? "highest" : "lowest", sort_column_name(by))
                                    : format("sorted by %s", sort_column_name(by));
  return format("%d of %d heads, %s; leave presenting to see all %d.",
                shown, total, order.c_str(), total);
}

// `group`: the tiles per row come in multiples of it (4 under the table: two rows of four).
void role_heatmaps(AppState& state, const UiContext& ui, const HeadRoles& roles, ImVec2 size, int group = 1) {
  const Derived& d = *ui.derived;
  const float f = ImGui::GetFontSize(), title_h = f * 1.4f, gap = f * 0.6f;
  // The scores' colour bar under the tiles (every role on one 0..1 scale).
  const float bar_h = colour_bar_across_height();
  // The maps are layers x heads cells (5 x 8 for stories260K), not square: the arrangement that
  // gives the largest maps for their real shape, less their label margins ("L4" left of a map,
  // "h7" under it; draw_heatmap's label font below, 4 px padding either side).
  const float label_px = state.present.active ? std::max(f * 0.8f, present_label_min()) : std::max(f * 0.8f, kSmallestLabel);
  const std::string widest_layer = format("L%d", std::max(roles.n_layers() - 1, 0));
  const float margin_w = ImGui::CalcTextSize(widest_layer.c_str()).x * label_px / f + 8, margin_h = label_px + 8;
  const float aspect = float(std::max(roles.n_heads(), 1)) / float(std::max(roles.n_layers(), 1));
  const GridLayout g = layout_grid(kHeadRoleCount, group, size.x, size.y - bar_h - gap, title_h, gap, aspect, margin_w, margin_h);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  if (ui.report && !state.present.active) {  // the maps' share of their room (tests/gl/model_screenshot_test.cpp)
    const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
    ui.report->panels.push_back({"role maps area", "roles", ImVec2(origin.x * fb.x, origin.y * fb.y),
                                 ImVec2((origin.x + size.x) * fb.x, (origin.y + size.y) * fb.y)});
  }
  std::vector<std::string> layer_names, head_names;
  for (int l = 0; l < roles.n_layers(); ++l) layer_names.push_back(format("L%d", l));
  for (int h = 0; h < roles.n_heads(); ++h) head_names.push_back(format("h%d", h));
  ScaleRange range;  // every role on [0, 1]
  range.lo = 0, range.hi = 1;
  for (int r = 0; r < kHeadRoleCount; ++r) {
    const HeadRole role = HeadRole(r);
    const ImVec2 tile(origin.x + float(r % g.cols) * g.tile_w, origin.y + float(r / g.cols) * g.tile_h);
    ImGui::SetCursorScreenPos(tile);
    ImGui::TextUnformatted(head_role_name(role));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", head_role_definition(role));
    ImGui::SetCursorScreenPos(ImVec2(tile.x, tile.y + title_h));
    const Map map = role_map(roles, role);  // [L, H]
    HeatmapSpec spec = heatmap_spec(format("role %s", head_role_name(role)), map_version(d.generation, -1, -1, r), plain_map(map), range, kRoleColours);
    spec.row_labels = &layer_names;
    spec.col_labels = &head_names;
    spec.label_font_max = f * 0.8f;
    if (state.present.active) {  // 20 px or more, thinned, or none on a small tile
      spec.label_font_min = present_label_min();
      spec.label_font_max = std::max(spec.label_font_max, spec.label_font_min);
    }
    spec.highlight_row = state.layer, spec.highlight_col = state.head;
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(g.tile_w - gap, g.tile_h - gap - title_h));
    if (hit.hovered && hit.row >= 0) {
      const float v = roles.scores[size_t(hit.row)][size_t(hit.col)][role];
      const std::string& label = roles.label[size_t(hit.row)][size_t(hit.col)];
      ImGui::SetTooltip("L%d h%d  %s %s\nrole: %s\nclick: open its map", hit.row, hit.col, head_role_name(role),
                        std::isnan(v) ? "not measured" : format("%.3f", double(v)).c_str(), head_label_text(label));
    }
    if (hit.clicked && hit.row >= 0) open_head(state, hit.row, hit.col);
  }
  const float rows = std::ceil(float(kHeadRoleCount) / float(std::max(g.cols, 1)));
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + std::min(rows * g.tile_h, size.y - bar_h)));
  draw_colour_bar_across(ui, range, kRoleColours, ImVec2(std::min(size.x, f * 18), bar_h));
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + size.y));
}

}  // namespace

void draw_roles(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const HeadRoles& roles = d.shown_roles();
  if (roles.empty()) {
    ImGui::TextDisabled("No head roles for this run.");
    return;
  }
  const float f = ImGui::GetFontSize();
  ImGui::AlignTextToFramePadding();
  ImGui::TextUnformatted("show");
  ImGui::SameLine();
  ImGui::SetNextItemWidth(f * 8);
  const std::vector<std::string>& labels = filter_labels();
  state.roles.filter = std::clamp(state.roles.filter, 0, int(labels.size()) - 1);
  if (ImGui::BeginCombo("##role filter", state.roles.filter == 0 ? "every head" : labels[size_t(state.roles.filter)].c_str())) {
    for (int i = 0; i < int(labels.size()); ++i)
      if (ImGui::Selectable(i == 0 ? "every head" : labels[size_t(i)].c_str(), i == state.roles.filter)) state.roles.filter = i;
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  // Wrapped, so that a narrow window (1280 x 720 with the sidebar) shows all of it. Presenting,
  // the labelling rule is in the note's tooltip: the table keeps the height.
  ImGui::PushTextWrapPos(0.0f);
  const bool present = state.present.active;
  if (present)
    ImGui::TextDisabled("Scores 0 to 1; a tick marks chance.");
  else
    ImGui::TextDisabled("Scores 0 to 1; the tick in each cell is chance, what uniform attention scores on this sentence. "
                        "A label needs %.2f and chance + %.2f (hover here for the whole rule). Hover a header for its "
                        "definition; click a head to open its map.",
                        double(roles.options.threshold), double(roles.options.chance_margin));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s.", roles.label_rule().c_str());
  if (roles.induction_measured)
    ImGui::TextDisabled("Induction: measured on a probe of %d random tokens repeated twice (fixed seed), not on the sentence.",
                        roles.options.probe_length);
  else if (!d.induction_checked)
    ImGui::TextDisabled("Induction: measuring on a probe of random tokens repeated twice...");
  else
    ImGui::TextDisabled("Induction: not measured (this model runs only its own input).");
  if (d.run().compact())
    ImGui::TextDisabled("Long input: scores over the exact rows of %d evenly spaced queries.", roles.query_rows);
  ImGui::PopTextWrapPos();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  // The table's natural width: every column at its header's width (and sort arrow), with cell padding.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float pad = style.CellPadding.x * 2 + 1, arrow = f * 1.2f;
  float natural = style.ScrollbarSize + f * 0.5f;
  for (const char* h : {"layer", "head", "induction"}) natural += ImGui::CalcTextSize(h).x + arrow + pad;
  for (int r = 0; r < kHeadRoleCount; ++r) natural += ImGui::CalcTextSize(head_role_name(HeadRole(r))).x + arrow + pad;
  const float row_h = std::ceil(ImGui::GetTextLineHeight() + style.CellPadding.y * 2 + 1);
  // Presenting, the table shows the heads that fit in `room` (in its order: the step's column
  // first) and says how many more there are, rather than scrolling: the class sees whole rows and
  // no scroll bar. Returns the rows to draw (-1: every head, scrolling) and the note's height.
  const auto fit_rows = [&](float room, float width, float& note_h) {
    note_h = 0;
    if (!present) return -1;
    const int total = int(rank_heads(roles, kSortByLayer, false, filter_label(state)).size());
    const int rows = std::max(1, int(std::floor(room / row_h)) - 1);  // less the header row
    if (rows >= total) return total;
    note_h = ImGui::CalcTextSize(more_heads_text(total, total, 0, true).c_str(), nullptr, false, width).y + style.ItemSpacing.y;
    return std::max(1, int(std::floor((room - note_h) / row_h)) - 1);
  };
  const auto table_and_note = [&](ImVec2 size, bool scroll_x, int rows) {
    ImGui::BeginGroup();
    const ShownRows shown = roles_table(state, roles, size, scroll_x, row_h, rows);
    if (shown.shown < shown.total) {
      ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + size.x);
      ImGui::TextDisabled("%s", more_heads_text(shown.shown, shown.total, shown.by, shown.descending).c_str());
      ImGui::PopTextWrapPos();
    }
    ImGui::EndGroup();
  };
  float note_h = 0;
  // Side by side when the heatmaps keep a useful width beside the whole table; otherwise the table
  // on top at its full width (no sideways scrolling) and the heatmaps under it.
  if (avail.x - natural - f >= f * 18) {
    table_and_note(ImVec2(natural, avail.y), false, fit_rows(avail.y, natural, note_h));
    ImGui::SameLine(0, f);
    role_heatmaps(state, ui, roles, ImVec2(avail.x - natural - f, avail.y));
  } else {
    // Whole rows only (a row cut by the table's bottom edge reads as a clipped number); presenting,
    // the table, which the steps talk about, takes the larger share.
    const bool scroll_x = avail.x < natural - f * 4;  // fixed columns shrink a little to fit; a much narrower panel scrolls
    float share = avail.y * (present ? 0.62f : 0.5f);
    {  // the role maps, all in one row, need only the height their width gives them; the table takes the rest
      const float tile_w = avail.x / kHeadRoleCount, margin = f * 2, gap = f * 0.6f;
      const float map_h = std::max(0.0f, tile_w - gap - margin) * float(roles.n_layers()) / float(std::max(roles.n_heads(), 1));
      share = std::max(share, avail.y - (f * 1.4f + map_h + margin + gap * 2 + colour_bar_across_height()));
    }
    const float room = std::max(2.0f, std::floor(share / row_h)) * row_h;
    const int rows = fit_rows(room, avail.x, note_h);
    const float table_h = (rows < 0 ? room : float(rows + 1) * row_h) + style.ScrollbarSize * (scroll_x ? 1.0f : 0.0f);
    table_and_note(ImVec2(avail.x, table_h), scroll_x, rows);
    role_heatmaps(state, ui, roles, ImVec2(avail.x, avail.y - table_h - note_h - style.ItemSpacing.y), 4);
  }
}

}  // namespace hs::gui
