// Head difference: every pair of heads with its head distance (mean total variation per query
// row, 0 to 1 at any length) as a sortable table and as a small heatmap with the clustering's
// dendrogram; the hovered (else the selected) pair is shown side by side with its difference map.
// One measure on screen: the cell mean head_difference of the JSON shrinks like 1/T and is not shown.
#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/state/head_order.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/order_control.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/map_zoom.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/panels/panels.h"
#include "core/analysis/head_pairs.h"
#include "core/analysis/head_stats.h"
#include "core/analysis/map_region.h"

namespace hs::gui {
namespace {

constexpr Colormap kDifferenceColours = Colormap::magma;

const char* const kDistanceHelp =
    "Head distance: for each query, the total variation between the two heads' rows, 0.5 \xE2\x88\x91_k |A_a \xE2\x88\x92 A_b| "
    "(0: the same keys with the same weights, 1: no key in common), averaged over queries. It means the same at "
    "any sentence length.";

// Returns the hovered pair (a, b) or (-1, -1). The distance column is coloured (0 .. its max).
std::pair<int, int> pair_table(AppState& state, const Map& dist, const Map& diff, float max, ImVec2 size) {
  std::pair<int, int> hovered{-1, -1};
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("pairs", 3, flags, size)) return hovered;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("head a", ImGuiTableColumnFlags_DefaultSort, 1.0f, int(PairSort::a));
  ImGui::TableSetupColumn("head b", 0, 1.0f, int(PairSort::b));
  ImGui::TableSetupColumn("distance", ImGuiTableColumnFlags_PreferSortDescending, 1.6f, int(PairSort::distance));
  // The header row by hand, so each measure's header says what it is.
  ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
  // A narrow column's header is its short name, whole, rather than its long one cut ("hea...").
  const char* const short_names[] = {"a", "b", "dist"};
  for (int c = 0; c < 3; ++c) {
    ImGui::TableSetColumnIndex(c);
    const char* name = ImGui::TableGetColumnName(c);
    const float need = ImGui::CalcTextSize(name).x + ImGui::GetFontSize() * 1.2f;  // and the sort arrow
    ImGui::TableHeader(need > ImGui::GetContentRegionAvail().x ? short_names[c] : name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", c == 2 ? kDistanceHelp : name);
  }
  PairSort by = PairSort::a;
  bool descending = false;
  if (const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
    by = PairSort(specs->Specs[0].ColumnUserID);
    descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
  }
  for (const HeadPair& p : sorted_pairs(dist, diff, by, descending)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool selected = p.a == state.difference.pair_a && p.b == state.difference.pair_b;
    if (ImGui::Selectable(format("h%d##%d-%d", p.a, p.a, p.b).c_str(), selected, ImGuiSelectableFlags_SpanAllColumns))
      state.difference.pair_a = p.a, state.difference.pair_b = p.b;
    if (ImGui::IsItemHovered()) hovered = {p.a, p.b};
    ImGui::TableNextColumn();
    ImGui::Text("h%d", p.b);
    ImGui::TableNextColumn();
    coloured_value_cell(kDifferenceColours, max > 0 ? p.distance / max : 0.0f, format("%.4f", double(p.distance)).c_str());
  }
  ImGui::EndTable();
  return hovered;
}

// The clustering's dendrogram beside the matrix: leaves at the rows' centres (`top` is the first
// row's top edge, rows `cell` apart), each merge a bracket at its distance, 0 at `top.x` and the
// largest merge distance `width` to the right. Hovering it names the distances.
void draw_dendrogram(const HeadClustering& c, const std::vector<int>& order, ImVec2 top, float cell, float width) {
  const int H = int(order.size());
  if (c.merges.empty() || H < 2 || width <= 0) return;
  float top_distance = 0;
  for (const ClusterMerge& m : c.merges) top_distance = std::max(top_distance, m.distance);
  if (!(top_distance > 0)) top_distance = 1;
  // Each node's (x, y): leaves at x = 0 and their row's centre, a merge at its distance and
  // halfway between its two parts.
  std::vector<ImVec2> at(size_t(H) + c.merges.size());
  for (int i = 0; i < H; ++i) at[size_t(order[size_t(i)])] = ImVec2(top.x, top.y + (float(i) + 0.5f) * cell);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImU32 colour = accent_colour(0.9f);
  for (size_t k = 0; k < c.merges.size(); ++k) {
    const ClusterMerge& m = c.merges[k];
    const ImVec2 a = at[size_t(m.a)], b = at[size_t(m.b)];
    const float x = top.x + width * std::clamp(m.distance / top_distance, 0.0f, 1.0f);
    dl->AddLine(a, ImVec2(x, a.y), colour, 1.5f);
    dl->AddLine(b, ImVec2(x, b.y), colour, 1.5f);
    dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), colour, 1.5f);
    at[size_t(H) + k] = ImVec2(x, (a.y + b.y) * 0.5f);
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (mouse.x >= top.x && mouse.x <= top.x + width && mouse.y >= top.y && mouse.y <= top.y + cell * float(H))
    ImGui::SetTooltip("Dendrogram of the clustering (average linkage on the head distance):\nthe further right two "
                      "groups join, the more they differ (right edge: %.3f).", double(top_distance));
}

// A zoomed pair: the minimap of `whole` (`side` pixels), the tokens in view and the way back.
void zoom_note(const UiContext& ui, const RegionMap& r, const HeatmapSpec& whole, MapZoom& zoom, float side) {
  draw_minimap(ui, whole, zoom, side);
  ImGui::SameLine();
  ImGui::BeginGroup();
  ImGui::TextDisabled("queries %d-%d, keys %d-%d: %s", r.region.row0, r.region.row1 - 1, r.region.col0, r.region.col1 - 1,
                      r.factor == 1 ? "exact cells" : format("blocks of %d x %d tokens", r.factor, r.factor).c_str());
  if (ImGui::SmallButton("whole maps")) zoom = MapZoom{};
  ImGui::EndGroup();
}

void side_by_side(AppState& state, const UiContext& ui, int a, int b, ImVec2 size) {
  const Derived& d = *ui.derived;
  const int layer = state.layer;
  // Zoomed (wheel, drag; double-click resets; the three maps together): the visible tokens of
  // both heads at the finest detail there is (map_region.h), exact cells when few are in view.
  MapZoom& zoom = state.difference.zoom;
  const int T = d.run().n_tokens();
  const float w = (size.x - ImGui::GetStyle().ItemSpacing.x * 2) / 3.0f;
  std::shared_ptr<const RegionMap> ra, rb;
  if (zoom.zoomed()) {
    const TokenRegion r = zoom_region(zoom, T);
    const int cells = zoom_max_cells(w * ImGui::GetIO().DisplayFramebufferScale.x);
    ra = shown_region(ui.regions, {d.analysis, layer, a, r, cells}, state.commands);
    rb = shown_region(ui.regions, {d.analysis, layer, b, r, cells}, state.commands);
    if (ra->factor != rb->factor || !(ra->region == rb->region)) {  // one is still being computed: both coarse meanwhile
      ra = std::make_shared<const RegionMap>(coarse_region(d.run(), layer, a, r, cells));
      rb = std::make_shared<const RegionMap>(coarse_region(d.run(), layer, b, r, cells));
    }
  }
  // The maps with their layer's mask; zoomed, the mask of the region's tokens.
  const ShownMap shown_a = head_map(d.run(), layer, a), shown_b = head_map(d.run(), layer, b);
  const ShownMap sa = ra ? derived_map(ra->cells, shown_a, ra->region.row0, ra->region.col0, ra->factor) : shown_a;
  const ShownMap sb = rb ? derived_map(rb->cells, shown_b, rb->region.row0, rb->region.col0, rb->factor) : shown_b;
  const Map diff = abs_difference(*sa.cells, *sb.cells);  // [T, T] (zoomed: the region's cells)
  const ScaleRange range = scale_range(state.scale, d.analysis->layer_max[size_t(layer)]);
  ColourScale diff_settings;
  const ScaleRange diff_range = scale_range(diff_settings, std::max(diff.maxCoeff(), 1e-6f));
  MapVersion version = map_version(d.generation, layer);
  if (ra) version.row0 = ra->region.row0, version.col0 = ra->region.col0, version.rows = ra->region.rows(),
          version.cols = ra->region.cols(), version.factor = ra->factor, version.exact = ra->exact && rb->exact;
  struct Part {
    const char* key;
    std::string title;
    ShownMap map;
    ScaleRange range;
    Colormap colours;
    int head;
  };
  const Part parts[] = {
      {"pair a", head_name(layer, a, d.run().n_layers()), sa, range, state.scale.colormap, a},
      {"pair b", head_name(layer, b, d.run().n_layers()), sb, range, state.scale.colormap, b},
      {"pair diff", "|difference|", derived_map(diff, sa), diff_range, kDifferenceColours, -1},  // the numbers: the heading above
  };
  const float bar_h = colour_bar_across_height(), f = ImGui::GetFontSize();
  // The titles wrap between words over their map's width; the maps start below the tallest.
  float title_h = 0;
  for (const Part& p : parts) title_h = std::max(title_h, ImGui::CalcTextSize(p.title.c_str(), nullptr, false, w).y);
  for (int i = 0; i < 3; ++i) {
    if (i > 0) ImGui::SameLine();
    ImGui::BeginGroup();
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::TextUnformatted(parts[i].title.c_str());
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + title_h + ImGui::GetStyle().ItemSpacing.y));
    MapVersion v = version;
    v.head = parts[i].head >= 0 ? parts[i].head : a, v.other = parts[i].head >= 0 ? -1 : b;
    HeatmapSpec spec = heatmap_spec(parts[i].key, v, parts[i].map, parts[i].range, parts[i].colours, layer, parts[i].head);
    spec.row_labels = spec.col_labels = &d.analysis->map_labels;
    if (ra) spec.row_labels = &ra->row_labels, spec.col_labels = &ra->col_labels;
    spec.label_font_max = f * 0.85f;
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(w, size.y - title_h - f * 0.9f - bar_h));
    zoom_by_mouse(zoom, hit, T);
    // The pair on the layer's scale (one bar under the first), the |difference| on its own; under
    // the second, zoomed, where the maps are: the first head's whole map small (never over cells).
    if (i != 1) draw_colour_bar_across(ui, parts[i].range, parts[i].colours, ImVec2(std::min(w, f * 18), bar_h));
    if (i == 1 && ra) zoom_note(ui, *ra, heatmap_spec("pair a", map_version(d.generation, layer, a), shown_a, range,
                                                      state.scale.colormap, layer, a), zoom, bar_h);
    if (hit.hovered && hit.row >= 0) {
      const char* what = i == 2 ? "|difference|" : "weight";
      const float value = (*parts[i].map.cells)(hit.row, hit.col);
      std::string text;
      if (ra) {
        const TokenRegion cell = ra->cell_tokens(hit.row, hit.col);
        text = ra->factor == 1 ? token_cell_text(*d.analysis, cell.row0, cell.col0, value, what)
                               : block_text(*d.analysis, cell, value, what, i < 2 ? layer : -1, parts[i].head);
        state.sentence.hovered_query = cell.row0, state.sentence.hovered_key = cell.col0;
      } else {
        text = cell_text(*d.analysis, hit.row, hit.col, value, what, i < 2 ? layer : -1, parts[i].head) + block_note(hit);
        state.sentence.hovered_query = d.analysis->map_token(hit.row), state.sentence.hovered_key = d.analysis->map_token(hit.col);
      }
      ImGui::SetTooltip("%s", text.c_str());
    }
    ImGui::EndGroup();
  }
}

}  // namespace

void draw_difference(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const int heads = d.run().n_heads(), layer = state.layer;
  if (heads == 0) return;
  const bool layer_control = toolbar_layer_control(state, d.run().n_layers());
  if (layer_control) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::InputInt("layer", &state.layer);
    state.layer = std::clamp(state.layer, 0, d.run().n_layers() - 1);
  }
  if (heads > 2) {
    if (layer_control) same_line_if_fits(order_control_width());
    draw_order_control("difference order", state.difference.clustered);
  }
  wrapped_hint(state.present.active ? "Head distance: mean over queries of 0.5 \xE2\x88\x91 |A_a \xE2\x88\x92 A_b| over keys, 0 (same) "
                                     "to 1 (disjoint), at any length."
                                   : "Head distance: mean over queries of 0.5 \xE2\x88\x91 |A_a \xE2\x88\x92 A_b| over keys, 0 (same) "
                                     "to 1 (disjoint), at any length. Hover a pair to compare.");
  if (heads < 2) {
    ImGui::TextWrapped("One head: nothing to compare. Pick more heads in the model panel.");
    return;
  }
  if (d.run().compact())
    ImGui::TextDisabled("Long input: distances from the exact rows of %d evenly spaced queries.",
                        d.analysis->distance_rows);
  const Map& dist = d.analysis->distance[size_t(layer)];  // [H, H]
  const Map& diff = d.analysis->difference[size_t(layer)];  // [H, H]
  const Map& shown = dist;
  const float shown_max = std::max(shown.maxCoeff(), 1e-6f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float f = ImGui::GetFontSize();
  const float table_w = std::min(avail.x * 0.4f, f * 28), top_h = avail.y * 0.45f;

  std::pair<int, int> hovered = pair_table(state, dist, diff, shown_max, ImVec2(table_w, top_h));
  ImGui::SameLine(0, f);
  // The matrix as a small heatmap with its own scale (0 .. largest difference), its rows and
  // columns in the model's order or the clustering's (labels keep the real head index).
  const bool clustered = state.difference.clustered;
  const HeadClustering clusters = clustered ? layer_clustering(*d.analysis, layer) : HeadClustering{};
  const std::vector<int> order = head_order(*d.analysis, layer, clustered);  // position -> head
  Map ordered(heads, heads);  // [H, H] in display order
  for (int i = 0; i < heads; ++i)
    for (int j = 0; j < heads; ++j) ordered(i, j) = shown(order[size_t(i)], order[size_t(j)]);
  std::vector<std::string> names;
  for (int i = 0; i < heads; ++i) names.push_back(format("h%d", order[size_t(i)]));
  HeatmapSpec spec = heatmap_spec("distance matrix", map_version(d.generation, layer, -1, clustered ? 2 : 0), plain_map(ordered),
                                  scale_range(ColourScale{}, shown_max), kDifferenceColours, layer);
  spec.row_labels = spec.col_labels = &names;
  const float dendro_w = clustered ? f * 5 : 0.0f;
  const ImVec2 matrix_size(std::min(top_h, avail.x - table_w - f * 6 - dendro_w), top_h);
  const ImVec2 matrix_at = ImGui::GetCursorScreenPos();
  ImGui::BeginGroup();
  const HeatmapHit hit = draw_heatmap(ui, spec, matrix_size);
  ImGui::EndGroup();
  if (hit.row >= 0 && hit.row != hit.col) {
    const int ha = order[size_t(hit.row)], hb = order[size_t(hit.col)];
    hovered = {std::min(ha, hb), std::max(ha, hb)};
  }
  if (hit.clicked && hit.row >= 0 && hit.row != hit.col) state.difference.pair_a = hovered.first, state.difference.pair_b = hovered.second;
  if (clustered) {
    const HeatmapLayout lay = layout_heatmap(spec, matrix_size, ImGui::GetFont(), f);
    ImGui::SameLine(0, 0);
    draw_dendrogram(clusters, order, ImVec2(matrix_at.x + lay.left + lay.cell * float(heads) + f * 0.3f, matrix_at.y), lay.cell,
                    dendro_w - f * 0.6f);
    ImGui::Dummy(ImVec2(dendro_w, top_h));
  }
  ImGui::SameLine();
  draw_colour_bar(ui, spec.range, kDifferenceColours, ImVec2(colour_bar_width(), top_h));

  const int a = hovered.first >= 0 ? hovered.first : state.difference.pair_a;
  const int b = hovered.first >= 0 ? hovered.second : state.difference.pair_b;
  ImGui::Spacing();
  // The pair's block names its model and layer, as every other block does: "L0 h1 vs L0 h2 (teaching model, layer 0)".
  section_title(ui.fonts.heading, format("%s vs %s (%s)%s", head_name(layer, a, d.run().n_layers()).c_str(),
                                         head_name(layer, b, d.run().n_layers()).c_str(), block_source(*d.analysis, layer).c_str(),
                                         hovered.first >= 0 ? "  (hovered)" : "").c_str());
  ImGui::SameLine(0, ImGui::GetFontSize());
  ImGui::TextDisabled("head distance %.3f", double(dist(a, b)));
  side_by_side(state, ui, a, b, ImGui::GetContentRegionAvail());
}

}  // namespace hs::gui
