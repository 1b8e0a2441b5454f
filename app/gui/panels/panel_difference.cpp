// Head difference: the pairwise mean |A_a - A_b| as a sortable table with coloured cells and
// as a small heatmap; the hovered (else the selected) pair is shown side by side with its
// difference map.
#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/panels/panels.h"
#include "core/analysis/head_pairs.h"
#include "core/analysis/head_stats.h"

namespace hs::gui {
namespace {

constexpr Colormap kDifferenceColours = Colormap::magma;

// Returns the hovered pair (a, b) or (-1, -1).
std::pair<int, int> pair_table(AppState& state, const Map& diff, float diff_max, ImVec2 size) {
  std::pair<int, int> hovered{-1, -1};
  const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("pairs", 3, flags, size)) return hovered;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("head a", ImGuiTableColumnFlags_DefaultSort, 1.0f, 0);
  ImGui::TableSetupColumn("head b", 0, 1.0f, 1);
  ImGui::TableSetupColumn("mean |A_a \xE2\x88\x92 A_b|", ImGuiTableColumnFlags_PreferSortDescending, 2.0f, 2);
  ImGui::TableHeadersRow();
  PairSort by = PairSort::a;
  bool descending = false;
  if (const ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs(); specs && specs->SpecsCount > 0) {
    by = PairSort(specs->Specs[0].ColumnUserID);
    descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
  }
  for (const HeadPair& p : sorted_pairs(diff, by, descending)) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const bool selected = p.a == state.difference.pair_a && p.b == state.difference.pair_b;
    if (ImGui::Selectable(format("h%d##%d-%d", p.a, p.a, p.b).c_str(), selected, ImGuiSelectableFlags_SpanAllColumns))
      state.difference.pair_a = p.a, state.difference.pair_b = p.b;
    if (ImGui::IsItemHovered()) hovered = {p.a, p.b};
    ImGui::TableNextColumn();
    ImGui::Text("h%d", p.b);
    ImGui::TableNextColumn();
    const float t = diff_max > 0 ? p.difference / diff_max : 0.0f;
    ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, colormap_u32(kDifferenceColours, t));
    ImGui::PushStyleColor(ImGuiCol_Text, text_colour_on(kDifferenceColours, t));
    ImGui::Text("%.4f", double(p.difference));
    ImGui::PopStyleColor();
  }
  ImGui::EndTable();
  return hovered;
}

void side_by_side(const AppState& state, const UiContext& ui, int a, int b, ImVec2 size) {
  const Derived& d = *ui.derived;
  const int layer = state.layer;
  const Map& ma = d.run().attention[size_t(layer)][size_t(a)];
  const Map& mb = d.run().attention[size_t(layer)][size_t(b)];
  const Map diff = abs_difference(ma, mb);  // [T, T]
  const ScaleRange range = scale_range(state.scale, d.analysis->layer_max[size_t(layer)]);
  ColourScale diff_settings;
  const ScaleRange diff_range = scale_range(diff_settings, std::max(diff.maxCoeff(), 1e-6f));
  const float w = (size.x - ImGui::GetStyle().ItemSpacing.x * 2) / 3.0f;
  const uint64_t version = d.generation * 1048576 + uint64_t(layer) * 65536 + uint64_t(a) * 256 + uint64_t(b);
  struct Part {
    const char* key;
    std::string title;
    const Map* map;
    ScaleRange range;
    Colormap colours;
    int head;
  };
  const Part parts[] = {
      {"pair a", head_name(layer, a, d.run().n_layers()), &ma, range, state.scale.colormap, a},
      {"pair b", head_name(layer, b, d.run().n_layers()), &mb, range, state.scale.colormap, b},
      {"pair diff", format("|difference|  (mean %.4f)", double(d.analysis->difference[size_t(layer)](a, b))), &diff, diff_range,
       kDifferenceColours, -1},
  };
  for (int i = 0; i < 3; ++i) {
    if (i > 0) ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(parts[i].title.c_str());
    HeatmapSpec spec = heatmap_spec(parts[i].key, version, *parts[i].map, parts[i].range, parts[i].colours, layer, parts[i].head);
    spec.row_labels = spec.col_labels = &d.analysis->map_labels;
    spec.label_font_max = ImGui::GetFontSize() * 0.85f;
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(w, size.y - ImGui::GetFontSize() * 1.5f));
    if (hit.hovered && hit.row >= 0)
      ImGui::SetTooltip("%s", cell_text(*d.analysis, hit.row, hit.col, (*parts[i].map)(hit.row, hit.col),
                                        i == 2 ? "|difference|" : "weight").c_str());
    ImGui::EndGroup();
  }
}

}  // namespace

void draw_difference(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const int heads = d.run().n_heads(), layer = state.layer;
  if (heads == 0) return;
  if (d.run().n_layers() > 1) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::InputInt("layer", &state.layer);
    state.layer = std::clamp(state.layer, 0, d.run().n_layers() - 1);
    ImGui::SameLine();
  }
  ImGui::TextDisabled("Mean over all query/key cells of |A_a \xE2\x88\x92 A_b|: 0 = identical heads. Hover a pair to compare.");
  if (heads < 2) {
    ImGui::TextWrapped("One head: nothing to compare. Pick more heads in the model panel.");
    return;
  }
  const Map& diff = d.analysis->difference[size_t(layer)];  // [H, H]
  const float diff_max = std::max(diff.maxCoeff(), 1e-6f);
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float f = ImGui::GetFontSize();
  const float table_w = std::min(avail.x * 0.3f, f * 22), top_h = avail.y * 0.45f;

  std::pair<int, int> hovered = pair_table(state, diff, diff_max, ImVec2(table_w, top_h));
  ImGui::SameLine(0, f);
  // The matrix as a small heatmap with its own scale (0 .. largest difference).
  std::vector<std::string> names;
  for (int h = 0; h < heads; ++h) names.push_back(format("h%d", h));
  HeatmapSpec spec = heatmap_spec("difference matrix", d.generation * 1024 + uint64_t(layer), diff,
                                  scale_range(ColourScale{}, diff_max), kDifferenceColours, layer);
  spec.row_labels = spec.col_labels = &names;
  ImGui::BeginGroup();
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(std::min(top_h, avail.x - table_w - f * 6), top_h));
  ImGui::EndGroup();
  if (hit.row >= 0 && hit.row != hit.col) hovered = {std::min(hit.row, hit.col), std::max(hit.row, hit.col)};
  if (hit.clicked && hit.row >= 0 && hit.row != hit.col) state.difference.pair_a = hovered.first, state.difference.pair_b = hovered.second;
  ImGui::SameLine();
  draw_colour_bar(ui, spec.range, kDifferenceColours, ImVec2(colour_bar_width(), top_h));

  const int a = hovered.first >= 0 ? hovered.first : state.difference.pair_a;
  const int b = hovered.first >= 0 ? hovered.second : state.difference.pair_b;
  ImGui::Spacing();
  section_title(ui.fonts.heading, format("%s vs %s%s", head_name(layer, a, d.run().n_layers()).c_str(),
                                         head_name(layer, b, d.run().n_layers()).c_str(), hovered.first >= 0 ? "  (hovered)" : "").c_str());
  side_by_side(state, ui, a, b, ImGui::GetContentRegionAvail());
}

}  // namespace hs::gui
