#include "app/gui/widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/token_notes.h"
#include "core/render/peak_reduce.h"

namespace hs::gui {
namespace {

float widest_label(const std::vector<std::string>* labels, ImFont* font, float size, int chars) {
  float w = 0;
  if (!labels) return 0;
  for (size_t i = 0; i < labels->size(); ++i)
    w = std::max(w, font->CalcTextSizeA(size, FLT_MAX, 0.0f, abbreviate(display_token(*labels, i), chars).c_str()).x);
  return w;
}

// Labels thinned to a lesson step's named tokens alone (HeatmapSpec::named).
bool heatmap_named_only(const HeatmapSpec& spec, const HeatmapLayout& L) {
  return spec.named && !spec.named->empty() && L.label_size > 0 && L.label_step > 1;
}

}  // namespace

HeatmapSpec heatmap_spec(std::string key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                         Colormap colormap, int layer, int head) {
  HeatmapSpec spec;
  spec.key = std::move(key);
  spec.version = version;
  spec.map = map.cells;
  spec.mask = map.mask;
  spec.tokens = map.tokens;
  spec.range = range;
  spec.colormap = colormap;
  spec.layer = layer;
  spec.head = head;
  return spec;
}

HeatmapSpec heatmap_spec(std::string key, uint64_t version, const Map& map, const ScaleRange& range, Colormap colormap,
                         int layer, int head) {
  return heatmap_spec(std::move(key), map_version(version), plain_map(map), range, colormap, layer, head);
}

ShownMap shown_map(const HeatmapSpec& spec) { return {spec.map, spec.mask, spec.tokens}; }

MapVersion map_version(uint64_t source, int layer, int head, int other) {
  MapVersion v;
  v.source = source, v.layer = layer, v.head = head, v.other = other;
  return v;
}

HeatmapLayout layout_heatmap(const HeatmapSpec& spec, ImVec2 size, ImFont* font, float font_size) {
  HeatmapLayout L;
  const int rows = spec.map ? int(spec.map->rows()) : 0, cols = spec.map ? int(spec.map->cols()) : 0;
  if (rows == 0 || cols == 0 || size.x <= 1 || size.y <= 1) return L;
  const bool labels = spec.row_labels || spec.col_labels;
  if (spec.fixed_cell > 0) {
    L.cell = spec.fixed_cell;
    L.label_size = labels ? spec.fixed_label : 0;
    L.left = spec.row_labels ? spec.fixed_left : 0;
    L.bottom = spec.col_labels ? spec.fixed_bottom : 0;
    L.rotate_cols = spec.fixed_rotate;
    L.label_chars = spec.fixed_chars;
    L.label_step = std::max(spec.fixed_step, 1);
    return L;
  }
  float f = spec.label_font_max > 0 ? spec.label_font_max : font_size;
  const float smallest = std::max(kSmallestLabel, spec.label_font_min);
  f = std::max(f, smallest);
  const float pad = 4.0f;
  // Shrink the label font until it fits the cells; below ~7 px cells, labels are dropped.
  for (int attempt = 0; attempt < 4 && labels; ++attempt) {
    L.label_chars = f < font_size * 0.8f ? 8 : 12;
    L.left = spec.row_labels ? widest_label(spec.row_labels, font, f, L.label_chars) + pad * 2 : 0;
    const float col_w = widest_label(spec.col_labels, font, f, L.label_chars);
    // Horizontal column labels if they fit under their cells, else rotated.
    float cell_h = std::min((size.x - L.left) / cols, (size.y - f - pad * 2) / rows);
    L.rotate_cols = col_w + pad > cell_h;
    L.bottom = spec.col_labels ? (L.rotate_cols ? col_w : f) + pad * 2 : 0;
    L.cell = std::min((size.x - L.left) / cols, (size.y - L.bottom) / rows);
    L.label_size = f;
    if (L.cell >= f * 1.05f) break;
    if (L.cell < smallest) {
      // Crowded: the smallest readable font on every n-th cell, as long as the label margins
      // leave most of the box to the map (a small overview tile keeps none).
      f = smallest;
      L.label_chars = 8;
      L.left = spec.row_labels ? widest_label(spec.row_labels, font, f, L.label_chars) + pad * 2 : 0;
      L.rotate_cols = true;
      L.bottom = spec.col_labels ? widest_label(spec.col_labels, font, f, L.label_chars) + pad * 2 : 0;
      L.cell = std::min((size.x - L.left) / cols, (size.y - L.bottom) / rows);
      L.label_size = f;
      L.label_step = std::max(1, int(std::ceil(f * 1.15f / std::max(L.cell, 1e-3f))));
      if (L.left > size.x * 0.35f || L.bottom > size.y * 0.35f || std::max(rows, cols) / L.label_step < 3) L.label_size = 0;
      break;
    }
    f = std::max(L.cell * 0.95f, smallest);
  }
  if (!labels || L.label_size == 0) {
    L.left = L.bottom = 0;
    L.label_size = 0;
    L.label_step = 1;
    L.cell = std::min(size.x / cols, size.y / rows);
  }
  // Cells may be smaller than a pixel (a 256-token map in a 60-pixel overview tile): the image is
  // scaled down to fit its box rather than spilling over its neighbours; at least 1 pixel in all.
  L.cell = std::max(L.cell, 1.0f / float(std::max(rows, cols)));
  return L;
}

HeatmapHit draw_heatmap(const UiContext& ui, const HeatmapSpec& spec, ImVec2 size) {
  HeatmapHit hit;
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(spec.key.c_str(), ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
  if (!spec.map || spec.map->size() == 0) return hit;
  hit.hovered = ImGui::IsItemHovered();
  hit.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
  hit.double_clicked = hit.hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left);
  hit.released_click = hit.hovered && ImGui::IsItemDeactivated() && ImGui::IsMouseReleased(ImGuiMouseButton_Left) &&
                       ImGui::GetIO().MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] < 9.0f;
  if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 3.0f)) hit.drag = ImGui::GetIO().MouseDelta;
  const int rows = int(spec.map->rows()), cols = int(spec.map->cols());
  ImFont* font = ImGui::GetFont();
  const HeatmapLayout L = layout_heatmap(spec, size, font, ImGui::GetFontSize());
  const ImVec2 cmin(std::floor(origin.x + L.left), std::floor(origin.y));
  const ImVec2 cmax(cmin.x + std::floor(L.cell * cols), cmin.y + std::floor(L.cell * rows));
  const float cw = (cmax.x - cmin.x) / cols, ch = (cmax.y - cmin.y) / rows;
  hit.cells_min = cmin, hit.cells_max = cmax;
  ImDrawList* dl = ImGui::GetWindowDrawList();

  // Drawn on fewer pixels than it has cells, a pixel shows the largest value it covers.
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  const ImVec2 pixels((cmax.x - cmin.x) * fb.x, (cmax.y - cmin.y) * fb.y);
  const int texels_x = std::clamp(int(std::lround(pixels.x)), 1, cols);
  const int texels_y = std::clamp(int(std::lround(pixels.y)), 1, rows);
  if (ui.hide_maps) {
    // Presentation's "reveal": the class guesses first; the labels stay, the weights wait.
    dl->AddRectFilled(cmin, cmax, ImGui::GetColorU32(ImGuiCol_FrameBg));
    // The "?" drawn as strokes, crisp at any size (a glyph scaled past its atlas size blurs):
    // a hook (an arc from the left over the top to its bottom), a stem and a dot.
    const float r = std::min(cmax.x - cmin.x, cmax.y - cmin.y) * 0.14f, w = std::max(2.0f, r * 0.38f);
    const ImVec2 mid((cmin.x + cmax.x) * 0.5f, (cmin.y + cmax.y) * 0.5f - r * 0.7f);
    const ImU32 ink = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    dl->PathArcTo(mid, r, 3.14159265f, 3.14159265f * 2.5f, 24);
    dl->PathLineTo(ImVec2(mid.x, mid.y + r * 1.7f));
    dl->PathStroke(ink, 0, w);
    dl->AddCircleFilled(ImVec2(mid.x, mid.y + r * 2.5f), w * 0.75f, ink, 16);
  } else {
    const HeatmapTexture tex = ui.images->region(spec.key, spec.version, shown_map(spec), spec.range, spec.colormap, pixels);
    dl->AddImage(tex.id, cmin, cmax, tex.uv0, tex.uv1);
  }
  // A thin frame so a map's edge shows against the page (dark cells on black, light ones on white).
  if (ui.frame_maps) dl->AddRect(ImVec2(cmin.x - 1, cmin.y - 1), ImVec2(cmax.x + 1, cmax.y + 1), ImGui::GetColorU32(ImGuiCol_Border));
  if (ui.report) {
    DrawnHeatmap& r = ui.report->heatmaps.emplace_back();
    r.key = spec.key, r.layer = spec.layer, r.head = spec.head, r.rows = rows, r.cols = cols;
    r.texels_x = texels_x, r.texels_y = texels_y;
    r.min = ImVec2(cmin.x * fb.x, cmin.y * fb.y), r.max = ImVec2(cmax.x * fb.x, cmax.y * fb.y);
    r.range = spec.range, r.colormap = spec.colormap;
    r.label_px = L.label_size * fb.y;
    r.row_labels = L.label_size > 0 && spec.row_labels;
    r.col_labels = L.label_size > 0 && spec.col_labels;
    r.hidden = ui.hide_maps;
    r.mask = spec.mask;
    r.tokens = spec.tokens;
    r.relative_bar = spec.relative_bar;
    if (spec.named) r.named = *spec.named;
    r.named_only = heatmap_named_only(spec, L);
  }

  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hit.hovered && mouse.x >= cmin.x && mouse.x < cmax.x && mouse.y >= cmin.y && mouse.y < cmax.y) {
    if (texels_x < cols || texels_y < rows) {
      // The block of cells the pixel under the mouse shows, and its largest cell.
      const int px = std::clamp(int((mouse.x - cmin.x) * fb.x * texels_x / pixels.x), 0, texels_x - 1);
      const int py = std::clamp(int((mouse.y - cmin.y) * fb.y * texels_y / pixels.y), 0, texels_y - 1);
      const BlockPeak b = block_peak(*spec.map, py, px, texels_y, texels_x);
      hit.row = b.row, hit.col = b.col;
      hit.block_rows = b.row1 - b.row0, hit.block_cols = b.col1 - b.col0;
    } else {
      hit.col = std::clamp(int((mouse.x - cmin.x) / cw), 0, cols - 1);
      hit.row = std::clamp(int((mouse.y - cmin.y) / ch), 0, rows - 1);
    }
  }

  // Row / column highlight: the selected ones solid, the hovered ones faint.
  const ImU32 accent = accent_colour(), faint = IM_COL32(255, 255, 255, 150);
  auto outline_row = [&](int r, ImU32 c) {
    if (r >= 0 && r < rows) dl->AddRect(ImVec2(cmin.x, cmin.y + r * ch), ImVec2(cmax.x, cmin.y + (r + 1) * ch), c, 0, 0, 2);
  };
  auto outline_col = [&](int k, ImU32 c) {
    if (k >= 0 && k < cols) dl->AddRect(ImVec2(cmin.x + k * cw, cmin.y), ImVec2(cmin.x + (k + 1) * cw, cmax.y), c, 0, 0, 2);
  };
  outline_row(spec.highlight_row, accent);
  outline_col(spec.highlight_col, accent);
  if (hit.row >= 0 && cw >= 4) {
    outline_row(hit.row, faint);
    outline_col(hit.col, faint);
  }
  // A sentence pair: a white line where sentence B begins, across and down.
  if (spec.boundary > 0 && spec.boundary < cols && spec.boundary < rows) {
    const ImU32 line = IM_COL32(255, 255, 255, 210);
    dl->AddLine(ImVec2(cmin.x + spec.boundary * cw, cmin.y), ImVec2(cmin.x + spec.boundary * cw, cmax.y), line, 1.5f);
    dl->AddLine(ImVec2(cmin.x, cmin.y + spec.boundary * ch), ImVec2(cmax.x, cmin.y + spec.boundary * ch), line, 1.5f);
  }
  if (spec.selected) dl->AddRect(ImVec2(cmin.x - 3, cmin.y - 3), ImVec2(cmax.x + 3, cmax.y + 3), accent, 2, 0, 2.5f);

  // Labels: rows right-aligned on the left, columns below (rotated when crowded).
  if (L.label_size > 0) {
    const ImU32 plain = ImGui::GetColorU32(ImGuiCol_Text), strong = accent, gen = generated_colour();
    const auto label_colour = [&](int i) { return spec.first_generated >= 0 && i >= spec.first_generated ? gen : plain; };
    const float f = L.label_size;
    // Thinned to every label_step-th token, plus the highlighted and hovered ones, which take the
    // place of a thinned neighbour closer than a step (drawn both, they would overlap).
    const bool named_only = heatmap_named_only(spec, L);
    const auto shown = [&](int i, int hot_a, int hot_b) {
      if (named_only) return i == hot_b || std::find(spec.named->begin(), spec.named->end(), i) != spec.named->end();
      if (i == hot_a || i == hot_b) return true;
      if (i % L.label_step != 0) return false;
      for (int h : {hot_a, hot_b})
        if (h >= 0 && std::abs(i - h) < L.label_step) return false;
      return true;
    };
    if (spec.row_labels)
      for (int r = 0; r < rows && r < int(spec.row_labels->size()); ++r) {
        const std::string s = abbreviate(display_token(*spec.row_labels, size_t(r)), L.label_chars);
        const ImVec2 ts = font->CalcTextSizeA(f, FLT_MAX, 0, s.c_str());
        const bool hot = r == spec.highlight_row || r == hit.row;
        if (!shown(r, spec.highlight_row, hit.row)) continue;
        dl->AddText(font, f, ImVec2(cmin.x - 6 - ts.x, cmin.y + (r + 0.5f) * ch - ts.y * 0.5f), hot ? strong : label_colour(r), s.c_str());
      }
    if (spec.col_labels)
      for (int k = 0; k < cols && k < int(spec.col_labels->size()); ++k) {
        const std::string s = abbreviate(display_token(*spec.col_labels, size_t(k)), L.label_chars);
        const bool hot = k == spec.highlight_col || k == hit.col;
        if (!shown(k, spec.highlight_col, hit.col)) continue;
        const float cx = cmin.x + (k + 0.5f) * cw;
        if (L.rotate_cols) {
          add_text_up(dl, font, f, ImVec2(cx, cmax.y + 5), hot ? strong : label_colour(k), s.c_str());
        } else {
          const ImVec2 ts = font->CalcTextSizeA(f, FLT_MAX, 0, s.c_str());
          dl->AddText(font, f, ImVec2(cx - ts.x * 0.5f, cmax.y + 4), hot ? strong : label_colour(k), s.c_str());
        }
      }
  }
  return hit;
}

std::string block_note(const HeatmapHit& hit) {
  if (hit.block_rows <= 1 && hit.block_cols <= 1) return "";
  return format("\n(the largest of the %d x %d cells this pixel shows)", hit.block_rows, hit.block_cols);
}

float colour_bar_width() {
  // The tick labels beside the bar, or the caption above it ("range: layer 11"), whichever is wider.
  return std::max(ImGui::CalcTextSize("0.000").x + ImGui::GetFontSize() * 1.6f, ImGui::CalcTextSize("range: layer 00").x) + 8.0f;
}

namespace {

// The values ticked on a colour bar `length` pixels long: every power of ten on a log scale, else
// nice values about `spacing` pixels apart (2 to `most` of them).
std::vector<float> bar_ticks(const ScaleRange& range, float length, float spacing, int most) {
  std::vector<float> ticks;
  if (range.mode == ScaleMode::log) {
    for (float v = range.hi; v >= range.lo * 0.999f; v /= 10.0f) ticks.push_back(v);
  } else {
    const int fit = std::clamp(int(length / spacing), 2, most);
    ticks = nice_ticks(range.lo, range.hi, fit);
    // A range just under a round step (-0.875 to 0.875 with steps of 1) would show one tick, no
    // scale: a finer step, while its labels keep most of their spacing apart.
    for (int n = fit + 1; ticks.size() < 2 && n <= most + 2; ++n) {
      const std::vector<float> finer = nice_ticks(range.lo, range.hi, n);
      if (finer.size() >= 2 && (finer[1] - finer[0]) / (range.hi - range.lo) * length >= spacing * 0.7f) ticks = finer;
    }
  }
  return ticks;
}

void report_bar(const UiContext& ui, const ScaleRange& range, Colormap colormap, ImVec2 bmin, ImVec2 bmax) {
  if (!ui.report) return;
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  ui.report->bars.push_back({range, colormap, ImVec2(bmin.x * fb.x, bmin.y * fb.y), ImVec2(bmax.x * fb.x, bmax.y * fb.y)});
}

}  // namespace

void draw_colour_bar(const UiContext& ui, const ScaleRange& range, Colormap colormap, ImVec2 size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  const float f = ImGui::GetFontSize();
  const float bar_w = std::max(10.0f, f * 0.9f);
  const ImVec2 bmin(origin.x, origin.y + f * 0.6f), bmax(origin.x + bar_w, origin.y + size.y - f * 0.6f);
  if (bmax.y - bmin.y < 10) return;
  // The bar is the colormap table itself: 256 rows, t from 1 (top) to 0 (bottom), linear 0..1.
  Map ramp(256, 1);  // [256, 1]
  for (int i = 0; i < 256; ++i) ramp(i, 0) = float(255 - i) / 255.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImTextureID tex = ui.images->image(std::string("colour bar ") + colormap_name(colormap), map_version(1), plain_map(ramp), ScaleRange{}, colormap, ImVec2(1, 256));
  dl->AddImage(tex, bmin, bmax);
  report_bar(ui, range, colormap, bmin, bmax);
  dl->AddRect(bmin, bmax, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (float v : bar_ticks(range, bmax.y - bmin.y, f * 2.2f, 6)) {
    const float t = std::clamp(scale_unit(range, v, 1.0f), 0.0f, 1.0f);
    const float y = bmax.y - t * (bmax.y - bmin.y);
    dl->AddLine(ImVec2(bmax.x, y), ImVec2(bmax.x + 4, y), text, 1.0f);
    const std::string s = format_weight(v);
    dl->AddText(ImVec2(bmax.x + 10, y - f * 0.5f), text, s.c_str());
  }
}

float colour_bar_across_height() { return std::max(10.0f, ImGui::GetFontSize() * 0.9f) + 6.0f + ImGui::GetFontSize(); }

void draw_colour_bar_across(const UiContext& ui, const ScaleRange& range, Colormap colormap, ImVec2 size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::Dummy(size);
  const float f = ImGui::GetFontSize();
  // Room at both ends for the end ticks' labels, centred under their ticks.
  const float bar_h = std::max(10.0f, f * 0.9f), end = ImGui::CalcTextSize("0.000").x * 0.5f;
  const ImVec2 bmin(origin.x + end, origin.y), bmax(origin.x + size.x - end, origin.y + bar_h);
  if (bmax.x - bmin.x < 10) return;
  // The bar is the colormap table itself: 256 columns, t from 0 (left) to 1 (right), linear 0..1.
  Map ramp(1, 256);  // [1, 256]
  for (int i = 0; i < 256; ++i) ramp(0, i) = float(i) / 255.0f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImTextureID tex = ui.images->image(std::string("colour bar across ") + colormap_name(colormap), map_version(1), plain_map(ramp), ScaleRange{}, colormap, ImVec2(256, 1));
  dl->AddImage(tex, bmin, bmax);
  report_bar(ui, range, colormap, bmin, bmax);
  dl->AddRect(bmin, bmax, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
  for (float v : bar_ticks(range, bmax.x - bmin.x, f * 4.0f, 8)) {
    const float t = std::clamp(scale_unit(range, v, 1.0f), 0.0f, 1.0f);
    const float x = bmin.x + t * (bmax.x - bmin.x);
    dl->AddLine(ImVec2(x, bmax.y), ImVec2(x, bmax.y + 4), text, 1.0f);
    const std::string s = format_weight(v);
    dl->AddText(ImVec2(x - ImGui::CalcTextSize(s.c_str()).x * 0.5f, bmax.y + 6), text, s.c_str());
  }
}

}  // namespace hs::gui
