// Presentation mode's head grid and a lesson's opened head (grid_present.h).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "app/gui/actions/lesson_player.h"
#include "app/gui/panels/grid_present.h"
#include "app/gui/state/selection.h"
#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/widgets/theme.h"
#include "app/gui/widgets/token_notes.h"
#include "core/model/teaching_model.h"

namespace hs::gui {
namespace {

// Head names in the labels' readable size, not the body font: the maps get the room. Never
// smaller than the grid's token labels (issue 46: at 1920x1080 the labels grew and the titles did not).
float title_height(float title_px) { return title_px * 1.25f; }
float map_gap() { return ImGui::GetFontSize() * 0.45f; }

// The teaching model's heads are each wired for one job: its tiles say it, outside a lesson (whose
// captions name the heads, and may ask the class to guess first).
std::string teaching_tile_job(const AppState& state, const RunAnalysis& d, int layer, int head) {
  if (state.lesson.lesson || d.run.info.kind != "teaching") return "";
  const std::vector<std::vector<std::string>>& titles = teaching_head_titles();
  if (layer < 0 || head < 0 || size_t(layer) >= titles.size() || size_t(head) >= titles[size_t(layer)].size()) return "";
  return titles[size_t(layer)][size_t(head)];
}

// A token as a word: without the space mark a tokenizer puts before it ("▁Lily", "ĠLily": "Lily").
std::string named_bare_word(const std::string& token) {
  for (const char* mark : {"\xE2\x96\x81", "\xC4\xA0", " "})
    if (token.rfind(mark, 0) == 0) return token.substr(std::char_traits<char>::length(mark));
  return token;
}

}  // namespace

std::vector<int> lesson_named_rows(const AppState& state, const RunAnalysis& step, const RunAnalysis& block) {
  std::vector<int> rows;
  if (!state.present.active || !state.lesson.lesson) return rows;
  for (const int q : state.query.queries) {
    if (q < 0 || q >= step.run.n_tokens()) continue;
    const std::string word = named_bare_word(step.run.tokens[size_t(q)]);
    int nth = 0;  // the word's occurrence: the second "Lily" is the repeat's
    for (int i = 0; i < q; ++i) nth += named_bare_word(step.run.tokens[size_t(i)]) == word;
    for (int i = 0, seen = 0; i < block.run.n_tokens(); ++i)
      if (named_bare_word(block.run.tokens[size_t(i)]) == word && seen++ == nth) {
        if (const int r = block.map_index(i); r >= 0 && std::find(rows.begin(), rows.end(), r) == rows.end()) rows.push_back(r);
        break;
      }
  }
  return rows;
}

void cell_tooltip(const RunAnalysis& a, int layer, int head, const HeatmapHit& hit) {
  if (hit.row < 0) return;
  const float w = a.run.attention[size_t(layer)][size_t(head)](hit.row, hit.col);
  ImGui::SetTooltip("%s\n%s%s", head_name(layer, head, a.run.n_layers()).c_str(), cell_text(a, hit.row, hit.col, w).c_str(),
                    block_note(hit).c_str());
}

void draw_head_tile(AppState& state, const UiContext& ui, const HeadTile& t) {
  const RunAnalysis& d = *t.d;
  const int h = t.head, heads = d.run.n_heads(), group = heads_per_group(d.run.info);
  ImFont* font = ImGui::GetFont();
  const auto width = [&](const std::string& s) { return font->CalcTextSizeA(t.title_size, FLT_MAX, 0, s.c_str()).x; };
  // The longest title that fits the tile, never into the next: name with its key/value head or
  // its job, then shorter ones down to "h2".
  const std::string name = head_name(t.layer, h, d.run.n_layers()), job = teaching_tile_job(state, d, t.layer, h);
  const std::string dot = "  \xC2\xB7  ", kv = group > 1 ? format("kv %d", h / group) : "", short_name = format("h%d", h);
  std::vector<std::string> titles;
  // With a job: "h2 · who: pronoun → name" on every tile alike (the layer is the layer control's).
  if (!job.empty()) titles = {short_name + " \xC2\xB7 " + job, job, short_name + " \xC2\xB7 " + job.substr(0, job.find(':'))};
  else if (!kv.empty()) titles = {name + dot + kv};
  titles.push_back(name);
  titles.push_back(short_name);
  std::string title;
  for (const std::string& candidate : titles)
    if (width(candidate) <= t.side) {
      title = candidate;
      break;
    }
  const ImU32 colour = h == state.head ? ImGui::GetColorU32(accent_text()) : ImGui::GetColorU32(ImGuiCol_Text);
  ImGui::GetWindowDrawList()->AddText(font, t.title_size, ImVec2(t.at.x + 2, t.at.y + 2), colour, title.c_str());
  const Map& map = d.run.attention[size_t(t.layer)][size_t(h)];  // [T, T]
  const ScaleRange own =
      t.per_head ? scale_range(state.scale, colour_scale_max({&map}, state.scale.ignore_first_key, &d.run.special_tokens)) : t.range;
  HeatmapSpec spec = heatmap_spec(format("%s L%d h%d", t.prefix, t.layer, h), map_version(t.version, t.layer, h),
                                  head_map(d.run, t.layer, h), own, state.scale.colormap, t.layer, h);
  spec.relative_bar = t.per_head;
  spec.row_labels = spec.col_labels = &d.map_labels;
  const std::vector<int> named = ui.derived && ui.derived->analysis ? lesson_named_rows(state, *ui.derived->analysis, d) : std::vector<int>{};
  spec.named = &named;
  spec.selected = h == state.head;
  spec.first_generated = d.map_index(first_generated(d.run));
  spec.boundary = d.run.segment_b_start > 0 ? d.map_index(d.run.segment_b_start) : -1;
  share_labels(spec, *t.grid, t.position, heads);  // row labels left of the first column, column labels under each column's lowest map
  if (!t.col_labels) spec.col_labels = nullptr;
  if (!t.row_labels) spec.row_labels = nullptr;
  const float x = spec.row_labels ? t.at.x - t.grid->labels.left : t.at.x;
  ImGui::SetCursorScreenPos(ImVec2(x, t.at.y + t.title_h));
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(t.at.x + t.side - x, t.side + (spec.col_labels ? t.grid->labels.bottom : 0)));
  if (hit.hovered) cell_tooltip(d, t.layer, h, hit);
  if (hit.clicked) {  // a lesson step that keeps its view opens the head in place
    if (hit.row >= 0 && !control_locked(state, LessonControl::queries)) state.query.queries = {d.map_token(hit.row)};
    open_head(state, t.layer, h);
  }
}

void draw_grid_without_room(const RunAnalysis& d, ImVec2 area) {
  const int heads = d.run.n_heads(), tokens = int(d.map_labels.size());
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + area.x);
  ImGui::TextColored(tone(Tone::warning),
                     "%d heads of %d x %d cells do not fit here: a map would be less than a pixel a cell. The Single "
                     "head tab shows one head at a time (the arrows step through them); Head difference and Head "
                     "roles show every head as a number.",
                     heads, tokens, tokens);
  ImGui::PopTextWrapPos();
}

namespace {

// A group's first head's name with its key/value head: "h4  kv 2".
std::string name_with_group(int head, int group) { return format("h%d  kv %d", head, head / group); }

// Every group's "kv G" goes beside its first head's name when each such column holds both, else
// on a line of their own above the names.
bool kv_beside_names(float stride, int heads, int group) {
  for (int h = 0; h < heads && group > 1; h += group)
    if (ImGui::CalcTextSize(name_with_group(h, group).c_str()).x + 4 > stride) return false;
  return true;
}

}  // namespace

float overview_header_height(int heads, int group, float stride, bool kv_line) {
  return ImGui::GetFontSize() * (kv_line && !kv_beside_names(stride, heads, group) ? 2.4f : 1.3f);
}

void draw_overview_header(ImDrawList* dl, ImVec2 at, float stride, int heads, int group, bool kv_line) {
  const float f = ImGui::GetFontSize();
  const bool beside = kv_beside_names(stride, heads, group), own_line = kv_line && !beside;
  const float names_y = at.y + (own_line ? f * 1.1f : 0.0f), bar_y = names_y + f * 1.3f - 4;  // the bar at the header's foot
  for (int h = 0; h < heads; ++h) {
    const float x = at.x + float(h) * stride;
    const bool first = group > 1 && h % group == 0;
    const std::string name = first && beside ? name_with_group(h, group) : format("h%d", h);
    // Every name when the columns are wide enough; else each group's first (its columns hold it).
    const float room = stride > f * 1.6f ? stride : first ? stride * float(group) : 0.0f;
    if (ImGui::CalcTextSize(name.c_str()).x + 2 <= room) dl->AddText(ImVec2(x + 2, names_y), dim_text_colour(), name.c_str());
    if (!first) continue;
    const std::string kv = format("kv %d", h / group);
    if (own_line && ImGui::CalcTextSize(kv.c_str()).x + 4 <= stride * float(group))
      dl->AddText(ImVec2(x + 2, at.y), dim_text_colour(), kv.c_str());
    const bool odd = (h / group) % 2;
    dl->AddRectFilled(ImVec2(x, bar_y), ImVec2(x + float(std::min(group, heads - h)) * stride - 4, bar_y + 3),
                      odd ? tone_u32(Tone::group, 0.86f) : accent_colour(0.8f));
  }
}

PresentGrid present_grid(const RunAnalysis& d, ImVec2 area, bool col_labels, bool row_labels) {
  const int heads = d.run.n_heads(), group = heads_per_group(d.run.info);
  const auto layout = [&](float title_px) {
    PresentGrid g = layout_present_grid(heads, group, int(d.map_labels.size()), d.map_labels, ImGui::GetFont(), area,
                                        title_height(title_px), map_gap(), present_label_min(), present_label_max(), col_labels,
                                        row_labels);
    g.title_h = title_height(title_px);
    g.title_px = std::max(present_label_min(), std::min(g.labels.size, title_px));
    return g;
  };
  // Laid out with titles of the smallest label size; when the labels grew, again with room for
  // titles of their size (a little less room for the maps: labels no larger than before).
  const PresentGrid small = layout(present_label_min());
  if (small.cell <= 0 || small.labels.size <= present_label_min() + 0.05f) return small;
  const PresentGrid large = layout(small.labels.size);
  return large.cell > 0 ? large : small;
}

float present_map_side(const RunAnalysis& d, ImVec2 area, bool col_labels) {
  const PresentGrid g = present_grid(d, area, col_labels);
  return g.cell * float(d.map_labels.size());
}

float present_grid_height(const RunAnalysis& d, ImVec2 area, bool col_labels) {
  const PresentGrid g = present_grid(d, area, col_labels);
  if (g.cell <= 0) return area.y;
  const float side = g.cell * float(d.map_labels.size());
  return float(g.grid.rows) * (g.title_h + side + map_gap()) + (col_labels ? g.labels.bottom : 0.0f);
}

float present_label_bottom(const RunAnalysis& d) {
  return fit_labels(d.map_labels, ImGui::GetFont(), 0, present_label_min(), present_label_min()).bottom;
}

float present_label_left(const RunAnalysis& d) {
  return fit_labels(d.map_labels, ImGui::GetFont(), 0, present_label_min(), present_label_min()).left;
}

void draw_present_layer_grid(AppState& state, const UiContext& ui, const RunAnalysis& d, uint64_t version, ImVec2 area,
                             const ScaleRange& range, const char* prefix, bool per_head, bool col_labels, bool row_labels,
                             const PresentGrid* like) {
  const int layer = std::min(state.layer, d.run.n_layers() - 1), heads = d.run.n_heads();
  const int group = heads_per_group(d.run.info);
  PresentGrid g = present_grid(d, area, col_labels, row_labels);
  int rows_h = g.grid.rows;  // the rows the height is reckoned with (centring)
  if (like) {
    g.cell = like->cell;
    g.labels = like->labels;
    g.title_px = like->title_px, g.title_h = like->title_h;
    rows_h = like->grid.rows;
  }
  if (!col_labels) g.labels.bottom = 0;
  if (!row_labels) g.labels.left = 0;
  if (g.cell <= 0) return draw_grid_without_room(d, area);
  const float side = g.cell * float(d.map_labels.size()), gap = map_gap(), title_h = g.title_h;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  // Centred in the area: what the arrangement leaves over goes around it, not to one side.
  const float used_w = g.labels.left + float(g.grid.cols) * (side + gap);
  const float used_h = float(rows_h) * (title_h + side + gap) + g.labels.bottom;
  const ImVec2 at(origin.x + std::max(0.0f, (area.x - used_w) * 0.5f), origin.y + std::max(0.0f, (area.y - used_h) * 0.3f));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float cells_x = at.x + g.labels.left;
  if (group > 1) {
    for (int start = 0; start < heads; start += group) {
      const int r = start / g.grid.cols, c0 = start % g.grid.cols, c1 = std::min(c0 + group, g.grid.cols);
      const int r1 = (std::min(start + group, heads) - 1) / g.grid.cols + 1;  // a group may fill whole rows
      const ImVec2 a(cells_x + float(c0) * (side + gap) - gap * 0.4f, at.y + float(r) * (title_h + side + gap) - 2);
      const ImVec2 b(cells_x + float(c1) * (side + gap) - gap * 0.6f, at.y + float(r1) * (title_h + side + gap) - gap * 0.5f);
      const bool odd = (start / group) % 2;
      dl->AddRect(a, b, odd ? tone_u32(Tone::group, 0.8f) : accent_colour(0.8f), 6, 0, 2.0f);
    }
  }
  for (int h = 0; h < heads; ++h) {
    HeadTile t;
    t.d = &d, t.version = version, t.prefix = prefix, t.layer = layer, t.head = h, t.position = h;
    t.at = ImVec2(cells_x + float(h % g.grid.cols) * (side + gap), at.y + float(h / g.grid.cols) * (title_h + side + gap));
    t.side = side, t.title_size = g.title_px, t.title_h = title_h, t.grid = &g, t.range = range, t.per_head = per_head;
    t.row_labels = row_labels, t.col_labels = col_labels;
    draw_head_tile(state, ui, t);
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

void draw_present_all_layers(AppState& state, const UiContext& ui, const Derived& d, ImVec2 area, const ScaleRange& range) {
  const RunAnalysis& a = *d.analysis;
  const int layers = d.run().n_layers(), heads = d.run().n_heads(), tokens = int(a.map_labels.size());
  if (layers == 0 || heads == 0 || tokens == 0) return;
  const int group = heads_per_group(d.run().info);
  const float f = ImGui::GetFontSize(), gap = f * 0.35f, name_w = ImGui::CalcTextSize("L00").x + f * 0.5f;
  // Presenting, the maps get the room: no line of kv labels (the bars group the heads).
  float top = overview_header_height(heads, group, FLT_MAX, false);
  // The arrangement is fixed (a row per layer); the labels' margins and the map side settle in a few rounds.
  LabelFit fit = fit_labels(a.map_labels, ImGui::GetFont(), 0, present_label_min(), present_label_min());
  float side = 0;
  for (int round = 0; round < 4; ++round) {
    side = std::min((area.x - name_w - fit.left) / float(heads) - gap, (area.y - top - fit.bottom) / float(layers) - gap);
    const LabelFit next = fit_labels(a.map_labels, ImGui::GetFont(), side / float(tokens), present_label_min(), present_label_max());
    const float next_side =
        std::min((area.x - name_w - next.left) / float(heads) - gap, (area.y - top - next.bottom) / float(layers) - gap);
    if (next.size > fit.size && next_side / float(tokens) * 0.9f + 0.5f < next.size) break;
    fit = next;
  }
  side = std::min((area.x - name_w - fit.left) / float(heads) - gap, (area.y - top - fit.bottom) / float(layers) - gap);
  PresentGrid g;
  g.grid = {heads, layers, side};
  g.labels = fit;
  g.cell = std::floor(side) / float(tokens);  // a whole-pixel map, as layout_present_grid
  if (g.cell <= 0) return;
  g.labels.step = std::max(1, int(std::ceil(fit.size * 0.95f / g.cell)));
  side = g.cell * float(tokens);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float used_w = name_w + fit.left + float(heads) * (side + gap);
  const float x0 = origin.x + std::max(0.0f, (area.x - used_w) * 0.5f) + name_w + fit.left;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  draw_overview_header(dl, ImVec2(x0, origin.y), side + gap, heads, group, false);
  const std::vector<int> named = lesson_named_rows(state, a, a);
  for (int l = 0; l < layers; ++l) {
    const float y = origin.y + top + float(l) * (side + gap);
    dl->AddText(ImVec2(x0 - fit.left - name_w, y + side * 0.5f - f * 0.5f), dim_text_colour(), format("L%d", l).c_str());
    for (int h = 0; h < heads; ++h) {
      HeatmapSpec spec = heatmap_spec(format("overview L%d h%d", l, h), map_version(d.generation, l, h), head_map(d.run(), l, h),
                                      range, state.scale.colormap, l, h);
      spec.row_labels = spec.col_labels = &a.map_labels;
      spec.named = &named;
      spec.selected = l == state.layer && h == state.head;
      spec.first_generated = a.map_index(first_generated(d.run()));
      spec.boundary = d.run().segment_b_start > 0 ? a.map_index(d.run().segment_b_start) : -1;
      share_labels(spec, g, l * heads + h, layers * heads);
      const float x = x0 + float(h) * (side + gap) - (spec.row_labels ? fit.left : 0.0f);
      ImGui::SetCursorScreenPos(ImVec2(x, y));
      const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(x0 + float(h) * (side + gap) + side - x, side + (spec.col_labels ? fit.bottom : 0)));
      if (hit.hovered) cell_tooltip(a, l, h, hit);
      if (hit.clicked) open_head(state, l, h);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

void draw_opened_head(AppState& state, const UiContext& ui, const RunAnalysis& d, uint64_t version, ImVec2 area,
                      const ScaleRange& range) {
  const int layer = std::min(state.layer, d.run.n_layers() - 1), h = std::min(state.grid.opened, d.run.n_heads() - 1);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::TextColored(accent_text(), "%s", head_name(layer, h, d.run.n_layers()).c_str());
  ImGui::SameLine();
  if (ImGui::SmallButton("back to every head") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) state.grid.opened = -1;
  const float top = ImGui::GetCursorScreenPos().y - origin.y;
  const ImVec2 box(area.x, area.y - top);
  const PresentGrid g = layout_present_grid(1, 1, int(d.map_labels.size()), d.map_labels, ImGui::GetFont(), box, 0, 0,
                                            present_label_min(), present_label_max());
  HeatmapSpec spec = heatmap_spec(format("opened L%d h%d", layer, h), map_version(version, layer, h), head_map(d.run, layer, h),
                                  range, state.scale.colormap, layer, h);
  spec.row_labels = spec.col_labels = &d.map_labels;
  spec.first_generated = d.map_index(first_generated(d.run));
  spec.boundary = d.run.segment_b_start > 0 ? d.map_index(d.run.segment_b_start) : -1;
  share_labels(spec, g, 0, 1);
  const float side = g.cell * float(d.map_labels.size());
  const float x = origin.x + std::max(0.0f, (box.x - side - g.labels.left) * 0.5f);
  ImGui::SetCursorScreenPos(ImVec2(x, origin.y + top));
  const HeatmapHit hit = draw_heatmap(ui, spec, ImVec2(g.labels.left + side, side + g.labels.bottom));
  if (hit.hovered) cell_tooltip(d, layer, h, hit);
  if (hit.clicked) state.grid.opened = -1;
  ImGui::SetCursorScreenPos(ImVec2(origin.x, origin.y + area.y));
}

}  // namespace hs::gui
