// One head, large: hover shows (query, key, weight), the selected query row and hovered
// row/column are outlined, a colour bar shows the scale. Also the shared scale toolbar.
#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/map_zoom.h"
#include "app/gui/work/exact_head_job.h"
#include "app/gui/work/region_maps.h"
#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/selection.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/token_notes.h"

namespace hs::gui {
namespace {

const char* kScaleNames[] = {"linear", "log", "per-row normalised"};

void head_picker(AppState& state, const Derived& d) {
  const int heads = d.run().n_heads(), layers = d.run().n_layers();
  if (toolbar_layer_control(state, layers)) {
    LockScope lock(state, LessonControl::layer);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::InputInt("layer", &state.layer);
    ImGui::SameLine();
  }
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  {
    LockScope lock(state, LessonControl::head);
    ImGui::InputInt("head", &state.head);
  }
  state.head = std::clamp(state.head, 0, heads - 1);
  state.layer = std::clamp(state.layer, 0, layers - 1);
}

void head_facts(const Derived& d, int layer, int head, bool opened) {
  const HeadSpectrum& s = d.analysis->spectrum[size_t(layer)][size_t(head)];
  const int group = heads_per_group(d.run().info);
  const bool masked = d.run().info.causal || d.run().info.window >= 0;
  if (d.run().compact()) {
    if (opened)  // this head's map exact; the rest of the run as the note says
      ImGui::TextWrapped("%d tokens: long-input mode. This head's map is exact (every query and key); the other views show "
                         "block maxima of %d x %d tokens.", d.run().n_tokens(), d.run().map_factor, d.run().map_factor);
    else
      ImGui::TextWrapped("%s", d.analysis->long_input_note.c_str());
    ImGui::TextDisabled("mean row entropy %.2f nats  \xC2\xB7  largest weight %s", double(s.mean_entropy),
                        format_weight(d.analysis->layer_max.empty() ? 0.0f : d.run().head_numbers[size_t(layer)][size_t(head)].max).c_str());
    return;
  }
  if (!d.spectrum) {
    ImGui::TextDisabled("mean row entropy %.2f nats  \xC2\xB7  score rank: computing...", double(s.mean_entropy));
    return;
  }
  if (s.singular_values.size() == 0) {
    ImGui::TextDisabled("mean row entropy %.2f nats  \xC2\xB7  score rank: off for this many tokens and maps (see Head width)",
                        double(s.mean_entropy));
    return;
  }
  // In plain words: exp(entropy) is how many tokens a row's weight is spread over, and the rank of
  // the scores Q K^T (at most the head width) is how many independent patterns they can mix.
  ImGui::TextDisabled("each query spreads its weight over about %.1f tokens", double(std::exp(s.mean_entropy)));
  ImGui::TextDisabled("%d independent patterns in its scores (at most its width, %d)%s", s.score_rank, d.run().info.d_head,
                      masked ? format("; %d counting the hidden cells as 0", s.masked_rank).c_str() : "");
  if (group > 1) ImGui::TextDisabled("shares keys and values with its group: key/value head %d", head / group);
}

// Long-input mode: the head's exact map, opened off the UI thread within the memory budget
// (exact_head_job.h). Asks for it when another head (or result) is on screen; says how far it got,
// with Cancel, or why it is not there. Returns the opened map (null until it is ready).
std::shared_ptr<const RegionMap> exact_head_line(AppState& state, const UiContext& ui, int layer, int head) {
  const Derived& d = *ui.derived;
  const ExactHeadStatus& s = ui.exact_head;
  if (!s.is_for(d.analysis.get(), layer, head)) {
    state.commands.push(OpenExactHead{layer, head});
    ImGui::TextDisabled("exact map: starting\xE2\x80\xA6");
    return nullptr;
  }
  const int T = d.run().n_tokens();
  const std::string size = memory_text(double(T) * double(T) * sizeof(float));
  if (s.map) {
    ImGui::TextDisabled("exact map: all %d x %d cells (%s), not block maxima", T, T, size.c_str());
    return s.map;
  }
  if (s.running) {
    const float f = ImGui::GetFontSize();
    const float share = s.total > 0 ? float(s.done) / float(s.total) : 0.0f;
    ImGui::ProgressBar(share, ImVec2(f * 12, 0), format("%d / %d rows", s.done, s.total).c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("exact map (%s)", size.c_str());
    ImGui::SameLine();
    if (ImGui::SmallButton("Cancel##exact")) state.commands.push(CancelExactHead{});
    return nullptr;
  }
  if (!s.refused.empty()) ImGui::TextColored(tone(Tone::warning), "exact map refused: %s", s.refused.c_str());
  else if (!s.error.empty()) ImGui::TextColored(tone(Tone::error), "exact map failed: %s", s.error.c_str());
  else ImGui::TextDisabled("exact map cancelled at %d of %d rows: showing block maxima", s.done, s.total);
  ImGui::SameLine();
  if (ImGui::SmallButton("compute exact map")) state.commands.push(OpenExactHead{layer, head});
  return nullptr;
}

}  // namespace

void draw_scale_controls(AppState& state, const AttentionRun& run) {
  const float f = ImGui::GetFontSize();
  if (state.present.active && control_locked(state, LessonControl::color_scale) && control_locked(state, LessonControl::colormap)) {
    // Presenting a step that fixes the colours: a note instead of disabled controls.
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s scale, %s colours", state.scale.mode == ScaleMode::linear ? "linear"
                                                : state.scale.mode == ScaleMode::log  ? "log"
                                                                                      : "per-row",
                        colormap_name(state.scale.colormap));
    return;
  }
  int mode = int(state.scale.mode);
  ImGui::BeginDisabled(control_locked(state, LessonControl::color_scale));
  ImGui::SetNextItemWidth(f * 9);
  if (ImGui::Combo("scale", &mode, kScaleNames, 3)) state.scale.mode = ScaleMode(mode);
  // Encoders mark their special tokens: [CLS] and [SEP] swamp the range as key 0 does in a decoder.
  const bool specials = std::find(run.special_tokens.begin(), run.special_tokens.end(), true) != run.special_tokens.end();
  same_line_if_room(specials ? "ignore special keys" : "ignore 1st key");
  ImGui::Checkbox(specials ? "ignore special keys" : "ignore 1st key", &state.scale.ignore_first_key);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(specials ? "Leave the special tokens' key columns ([CLS], [SEP], <s>, </s>) out of the colour range:\n"
                                 "they often take most of the weight. They are drawn at the top colour or below."
                               : "Leave key 0 out of the colour range: the first token often takes most of the weight.");
  ImGui::EndDisabled();
  same_line_if_fits(labelled_width(f * 7, "colours"));
  ImGui::SetNextItemWidth(f * 7);
  LockScope lock(state, LessonControl::colormap);
  if (ImGui::BeginCombo("colours", colormap_name(state.scale.colormap))) {
    for (Colormap c : all_colormaps())
      if (!colormap_is_diverging(c) && ImGui::Selectable(colormap_name(c), c == state.scale.colormap)) state.scale.colormap = c;
    ImGui::EndCombo();
  }
}

void draw_head(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  if (d.run().n_heads() == 0) return;
  // Presenting a step that fixes the head and the colours: no control row, the map takes the
  // full height; the head's name and facts go in the column beside it.
  const bool bare = state.present.active && control_locked(state, LessonControl::head) && control_locked(state, LessonControl::layer) &&
                    control_locked(state, LessonControl::color_scale) && control_locked(state, LessonControl::colormap);
  if (!bare) {
    head_picker(state, d);
    same_line_if_fits(labelled_width(ImGui::GetFontSize() * 9, "scale"));
    draw_scale_controls(state, d.run());
    same_line_if_room("values");
    ImGui::Checkbox("values", &state.head_view.show_values);
    same_line_if_room("layer range");
    ImGui::Checkbox("layer range", &state.head_view.layer_range);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip("Off: the head on its own colour range. On: on its layer's range, as in the grid, so a dim head looks dim.");
  }
  const int layer = state.layer, head = state.head;
  const std::vector<int> queries = shown_queries(state, d.run().n_tokens());
  std::shared_ptr<const RegionMap> opened;  // long-input mode: the head's exact map, once computed
  if (d.run().compact()) opened = exact_head_line(state, ui, layer, head);
  if (!bare) {
    head_facts(d, layer, head, opened != nullptr);
    if (queries.size() == 1) draw_next_token_line(d.run(), queries[0]);
  }

  const Map& map = d.run().attention[size_t(layer)][size_t(head)];  // [T, T]
  // One head on its own range (or its layer's, when asked), as an export of this view is.
  const float layer_max = state.scale.ignore_first_key ? d.analysis->layer_max_skip_first[size_t(layer)]
                                                       : d.analysis->layer_max[size_t(layer)];
  const ColourScale colours = view_colour_scale(state, View::head, layer_max);
  ScaleRange range =
      scale_range(colours, colours.fixed_max > 0 ? colours.fixed_max : colour_scale_max({&map}, colours.ignore_first_key, &d.run().special_tokens));
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float bar_w = colour_bar_width();
  HeatmapSpec whole = heatmap_spec("head view", map_version(d.generation, layer, head), head_map(d.run(), layer, head), range,
                                   state.scale.colormap, layer, head);
  whole.row_labels = whole.col_labels = &d.analysis->map_labels;
  if (state.present.active) whole.label_font_min = present_label_min();
  whole.highlight_row = queries.size() == 1 ? d.analysis->map_index(queries[0]) : -1;
  whole.first_generated = d.analysis->map_index(first_generated(d.run()));
  whole.boundary = d.run().segment_b_start > 0 ? d.analysis->map_index(d.run().segment_b_start) : -1;
  const ImVec2 start = ImGui::GetCursorScreenPos();
  const ImVec2 box(avail.x - bar_w - 16, avail.y);
  // Zoomed (wheel, drag; double-click resets): the visible tokens at the finest detail there is,
  // exact cells once few enough are in view, also in long-input mode (map_region.h).
  const int T = d.run().n_tokens();
  MapZoom& zoom = state.head_view.zoom;
  zoom_follow(zoom, layer, head);  // another head opens on its whole map
  std::shared_ptr<const RegionMap> region;  // zoomed, or the opened exact map: cells with their tokens
  HeatmapSpec spec = whole;
  if (zoom.zoomed()) {
    const float fb = ImGui::GetIO().DisplayFramebufferScale.y;
    RegionRequest ask{d.analysis, layer, head, zoom_region(zoom, T), zoom_max_cells(box.y * fb), opened};
    region = shown_region(ui.regions, ask, state.commands);
  } else if (opened) {
    region = opened;
  }
  if (region) {
    const TokenRegion& r = region->region;
    const int f = region->factor;
    // The region's cells carry the mask of the tokens they cover.
    const ShownMap cells = derived_map(region->cells, shown_map(whole), r.row0, r.col0, f);
    spec.map = cells.cells, spec.mask = cells.mask;
    spec.row_labels = &region->row_labels, spec.col_labels = &region->col_labels;
    spec.version.row0 = r.row0, spec.version.col0 = r.col0, spec.version.rows = r.rows(), spec.version.cols = r.cols();
    spec.version.factor = f, spec.version.exact = region->exact;
    if (state.head_view.region_range && zoom.zoomed()) {
      range = scale_range(colours, colour_scale_max({&region->cells}, colours.ignore_first_key && r.col0 == 0, nullptr));
      spec.range = range;
    }
    const auto cell_of = [&](int token, int first) { return token < first ? -1 : (token - first) / f; };
    spec.highlight_row = queries.size() == 1 ? cell_of(queries[0], r.row0) : -1;
    const int gen = first_generated(d.run());
    spec.first_generated = gen < 0 ? -1 : std::max(0, cell_of(gen, r.col0));
    spec.boundary = d.run().segment_b_start > 0 ? cell_of(d.run().segment_b_start, r.col0) : -1;
  }
  const Map& shown = *spec.map;
  const HeatmapHit hit = draw_heatmap(ui, spec, box);
  const HeatmapLayout L = layout_heatmap(spec, box, ImGui::GetFont(), ImGui::GetFontSize());
  zoom_by_mouse(zoom, hit, T);
  if (state.head_view.show_values && L.cell >= ImGui::GetFontSize() * 2.2f) {
    // Numbers on the cells, black or white to stay readable.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float size = std::min(ImGui::GetFontSize(), L.cell * 0.32f);
    const Map t = scale_to_unit(shown, range);
    for (int i = 0; i < shown.rows(); ++i)
      for (int j = 0; j < shown.cols(); ++j) {
        const std::string s = format("%.2f", double(shown(i, j)));
        const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0, s.c_str());
        const ImVec2 c(std::floor(start.x + L.left) + (j + 0.5f) * std::floor(L.cell * shown.cols()) / shown.cols(),
                       std::floor(start.y) + (i + 0.5f) * std::floor(L.cell * shown.rows()) / shown.rows());
        dl->AddText(ImGui::GetFont(), size, ImVec2(c.x - ts.x * 0.5f, c.y - ts.y * 0.5f),
                    text_colour_on(state.scale.colormap, t(i, j)), s.c_str());
      }
  }
  if (hit.hovered && hit.row >= 0) {
    // The tokens under the pointer (the chip bar shows them next frame) and the tooltip.
    int query = d.analysis->map_token(hit.row), key = d.analysis->map_token(hit.col);
    std::string text;
    const float value = shown(hit.row, hit.col);
    if (region) {
      const TokenRegion cell = region->cell_tokens(hit.row, hit.col);
      query = cell.row0, key = cell.col0;
      text = region->factor == 1 ? token_cell_text(*d.analysis, query, key, value)
                                 : block_text(*d.analysis, cell, value, "weight", layer, head);
    } else {
      text = cell_text(*d.analysis, hit.row, hit.col, value, "weight", layer, head);
    }
    if (!region || region->factor > 1) text += block_note(hit);
    state.sentence.hovered_query = query, state.sentence.hovered_key = key;
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(text.c_str());
    const std::string next = d.run().compact() ? std::string() : next_token_note(d.run(), query);
    if (!next.empty()) ImGui::TextDisabled("after the query: %s", next.c_str());
    if (region && !region->exact) ImGui::TextDisabled("computing the exact cells\xE2\x80\xA6");
    ImGui::EndTooltip();
  }
  // On release, so that a drag that pans the zoomed map keeps the selected query.
  if (hit.released_click && hit.row >= 0)
    state.query.queries = {region ? region->cell_tokens(hit.row, hit.col).row0 : d.analysis->map_token(hit.row)};
  const float used = L.cell * float(shown.cols()) + L.left;
  ImGui::SetCursorScreenPos(ImVec2(start.x + std::min(used, box.x) + 16, start.y));
  ImGui::BeginGroup();
  if (bare) {
    // The head's name and facts above its colour bar, wrapped to the column.
    ImGui::TextColored(accent_text(), "%s", head_name(layer, head, d.run().n_layers()).c_str());
    ImGui::PushTextWrapPos(0);
    head_facts(d, layer, head, opened != nullptr);
    if (queries.size() == 1) draw_next_token_line(d.run(), queries[0]);
    ImGui::PopTextWrapPos();
  }
  ImGui::TextDisabled("%s\n%s", scale_caption(range).c_str(),
                      region && zoom.zoomed() && state.head_view.region_range ? "range: this region"
                      : colours.fixed_max > 0                ? format("range: layer %d", layer).c_str()
                                                             : "range: this head");
  // Zoomed, the column also holds the region's note, its controls and the minimap under the bar.
  const float fs = ImGui::GetFontSize(), minimap = std::min({bar_w * 2.2f, fs * 8, std::max(24.0f, avail.y * 0.2f)});
  const float below = region && zoom.zoomed() ? fs * 6.5f + minimap : fs * 3;
  const float bar_room = avail.y - (ImGui::GetCursorScreenPos().y - start.y) - below;
  draw_colour_bar(ui, range, state.scale.colormap,
                  ImVec2(bar_w, std::max(std::min(L.cell * float(shown.rows()), bar_room), fs * 4)));
  if (region && zoom.zoomed()) {
    // What the zoomed map shows, and how to get back.
    const TokenRegion& r = region->region;
    ImGui::TextDisabled("queries %d-%d\nkeys %d-%d\n%s", r.row0, r.row1 - 1, r.col0, r.col1 - 1,
                        region->factor == 1 ? "exact cells" : region->exact ? format("blocks of %d x %d", region->factor, region->factor).c_str()
                                                                           : "computing\xE2\x80\xA6");
    if (ImGui::SmallButton("whole map")) zoom = MapZoom{};
    ImGui::Checkbox("region range", &state.head_view.region_range);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Colours span the weights of the region in view (else the whole head's).");
    draw_minimap(ui, whole, zoom, minimap);
  } else if (!state.present.active) {  // no mouse hints on a slide
    ImGui::TextDisabled("wheel: zoom");
  }
  ImGui::EndGroup();
}

}  // namespace hs::gui
