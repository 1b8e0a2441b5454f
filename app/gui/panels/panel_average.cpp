// Averaged maps hide heads: the head-averaged map (what a library returns by default, e.g.
// PyTorch's average_attn_weights=True) large on the left, the per-head maps it came from on the
// right, all on the layer's one colour scale.
#include <algorithm>

#include "app/gui/widgets/grid_layout.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"

namespace hs::gui {

void draw_average(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const int layer = state.layer, heads = d.run().n_heads();
  if (heads == 0 || size_t(layer) >= d.analysis->average.size() || d.analysis->average[size_t(layer)].size() == 0) return;
  // Presenting a step that fixes the colours: no toolbar or explanation, the maps get the room.
  const bool bare = state.present.active && control_locked(state, LessonControl::color_scale) && control_locked(state, LessonControl::colormap);
  if (!bare) draw_scale_controls(state, d.run());
  ImGui::PushTextWrapPos(0.0f);  // the explanation wraps at the panel's edge
  if (bare) {
  } else if (state.average.rollout && d.analysis->rollout.size() > 0)
    ImGui::TextDisabled("Left: attention rollout through all %d layers, on its own scale (0 to its largest value). Right: "
                        "the heads of %s.", d.run().n_layers(), format("layer %d", layer).c_str());
  else
    ImGui::TextDisabled("Left: the mean over the %d heads of %s. Right: the heads themselves, on the same scale.", heads,
                        d.run().n_layers() > 1 ? format("layer %d", layer).c_str() : "the layer");
  ImGui::PopTextWrapPos();
  const float f = ImGui::GetFontSize(), gap = f * 0.9f, title_h = f * 1.5f;
  const float bar_w = colour_bar_width();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float usable = avail.x - bar_w - 16;
  const float left_w = std::min(usable * 0.5f, avail.y);
  const bool skip = state.scale.ignore_first_key;
  const ScaleRange range = scale_range(state.scale, skip ? d.analysis->layer_max_skip_first[size_t(layer)] : d.analysis->layer_max[size_t(layer)]);
  const ImVec2 origin = ImGui::GetCursorScreenPos();

  // The left map: the layer's head average, or the rollout through every layer (Abnar & Zuidema:
  // each layer's average mixed half and half with the residual identity, multiplied through).
  const bool rollout = state.average.rollout && d.analysis->rollout.size() > 0;
  const bool rollout_box = !bare || d.run().n_layers() > 1;
  if (rollout_box) ImGui::Checkbox("rollout through all layers", &state.average.rollout);
  if (rollout_box && ImGui::IsItemHovered())
    ImGui::SetTooltip("Attention rollout: each layer's head average A mixed with the residual path, 0.5 A + 0.5 I, "
                      "multiplied from the first layer to the last. Row i: how much output position i draws on each "
                      "input token. Off in long-input mode and past %d tokens.", kRolloutMaxTokens);
  // Presenting, the left map says what it is (the explanation line above is hidden there), in the
  // words the lesson uses.
  if (state.present.active)
    ImGui::TextUnformatted(rollout ? format("rollout through all %d layers", d.run().n_layers()).c_str()
                                   : format("average of the %d heads%s", heads,
                                            d.run().n_layers() > 1 ? format(" of layer %d", layer).c_str() : "").c_str());
  const ScaleRange rollout_range = scale_range(state.scale, rollout ? d.analysis->rollout.maxCoeff() : 1.0f);
  HeatmapSpec avg = rollout ? heatmap_spec("rollout", map_version(d.generation), rollout_map(*d.analysis), rollout_range,
                                           state.scale.colormap)
                            : heatmap_spec(format("average L%d", layer), map_version(d.generation, layer),
                                           average_map(*d.analysis, layer), range, state.scale.colormap, layer);
  avg.row_labels = avg.col_labels = &d.analysis->map_labels;
  avg.label_font_max = f * 0.85f;
  if (state.present.active) {  // readable from the back: never under 20 px, thinned instead
    avg.label_font_min = present_label_min();
    avg.label_font_max = std::max(avg.label_font_max, avg.label_font_min);
  }
  // The rollout is on its own scale: its own bar under it (the layer's bar is on the right).
  const float across_h = rollout ? colour_bar_across_height() + f * 0.4f : 0.0f;
  const float avg_h = state.present.active ? ImGui::GetContentRegionAvail().y - across_h - f * 0.5f : avail.y - title_h * 2 - across_h;
  const HeatmapHit avg_hit = draw_heatmap(ui, avg, ImVec2(left_w - gap, avg_h));
  if (rollout) draw_colour_bar_across(ui, rollout_range, state.scale.colormap, ImVec2(std::min(left_w - gap, f * 20), colour_bar_across_height()));
  if (avg_hit.hovered && avg_hit.row >= 0)
    ImGui::SetTooltip("%s", cell_text(*d.analysis, avg_hit.row, avg_hit.col, (*avg.map)(avg_hit.row, avg_hit.col),
                                      rollout ? "rollout" : "mean weight").c_str());

  const float right_x = origin.x + left_w + gap;
  const GridLayout g = layout_grid(heads, 1, usable - left_w - gap, avail.y, title_h, gap);
  for (int h = 0; h < heads; ++h) {
    const ImVec2 tile(right_x + float(h % g.cols) * g.tile_w, origin.y + float(h / g.cols) * g.tile_h);
    ImGui::SetCursorScreenPos(tile);
    ImGui::TextUnformatted(head_name(layer, h, d.run().n_layers()).c_str());
    ImGui::SetCursorScreenPos(ImVec2(tile.x, tile.y + title_h));
    const HeatmapSpec spec = heatmap_spec(format("average-heads L%d h%d", layer, h), map_version(d.generation, layer, h),
                                          head_map(d.run(), layer, h), range, state.scale.colormap, layer, h);
    const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(g.tile_w - gap, g.tile_h - gap - title_h));
    if (hit.clicked && !control_locked(state, LessonControl::panel)) {
      state.head = h;
      request_view(state, View::head);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x + usable + 16, origin.y));
  ImGui::BeginGroup();
  ImGui::TextDisabled("%s\nrange: layer %d", scale_caption(range).c_str(), layer);
  // Under the caption, the bar and its end ticks' labels inside the panel.
  const float below = origin.y + avail.y - ImGui::GetCursorScreenPos().y - f * 0.2f;
  draw_colour_bar(ui, range, state.scale.colormap, ImVec2(bar_w, std::min(below, 420.0f)));
  ImGui::EndGroup();
}

}  // namespace hs::gui
