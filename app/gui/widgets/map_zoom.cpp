#include "app/gui/widgets/map_zoom.h"

#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {

float min_zoom_span(int tokens) { return tokens > 3 ? 3.0f / float(tokens) : 1.0f; }

TokenRegion zoom_region(const MapZoom& given, int tokens) {
  const MapZoom z = zoom_in_range(given);
  const int T = std::max(tokens, 1);
  const auto range = [&](float a0) {
    const int first = std::clamp(int(std::floor(a0 * T)), 0, T - 1);
    const int end = std::clamp(int(std::ceil((a0 + z.span) * T - 1e-4f)), first + 1, T);
    return std::make_pair(first, end);
  };
  const auto [r0, r1] = range(z.y0);
  const auto [c0, c1] = range(z.x0);
  return {r0, r1, c0, c1};
}

void zoom_at(MapZoom& z, float u, float v, float steps, int tokens) {
  z = zoom_in_range(z);
  const float px = z.x0 + u * z.span, py = z.y0 + v * z.span;  // the point under the pointer, kept there
  z.span = std::clamp(z.span * std::pow(0.8f, steps), min_zoom_span(tokens), 1.0f);
  z.x0 = std::clamp(px - u * z.span, 0.0f, 1.0f - z.span);
  z.y0 = std::clamp(py - v * z.span, 0.0f, 1.0f - z.span);
  z = zoom_in_range(z);  // a nan wheel step or pointer gives the whole map
}

bool zoom_by_mouse(MapZoom& z, const HeatmapHit& hit, int tokens) {
  const ImVec2 size(hit.cells_max.x - hit.cells_min.x, hit.cells_max.y - hit.cells_min.y);
  if (size.x < 1 || size.y < 1) return false;
  const MapZoom before = z;
  const ImGuiIO& io = ImGui::GetIO();
  if (hit.hovered && io.MouseWheel != 0.0f) {
    const float u = std::clamp((io.MousePos.x - hit.cells_min.x) / size.x, 0.0f, 1.0f);
    const float v = std::clamp((io.MousePos.y - hit.cells_min.y) / size.y, 0.0f, 1.0f);
    zoom_at(z, u, v, io.MouseWheel, tokens);
  }
  if (hit.drag.x != 0.0f || hit.drag.y != 0.0f) {
    z = zoom_in_range(z);
    z.x0 = std::clamp(z.x0 - hit.drag.x / size.x * z.span, 0.0f, 1.0f - z.span);
    z.y0 = std::clamp(z.y0 - hit.drag.y / size.y * z.span, 0.0f, 1.0f - z.span);
    z = zoom_in_range(z);
  }
  if (hit.double_clicked) z = MapZoom{};
  return z.x0 != before.x0 || z.y0 != before.y0 || z.span != before.span;
}

void draw_minimap(const UiContext& ui, const HeatmapSpec& whole, const MapZoom& given, float side) {
  const MapZoom z = zoom_in_range(given);
  if (!z.zoomed() || !whole.map || whole.map->size() == 0 || !(side >= 24)) return;
  const ImVec2 min(ImGui::GetCursorScreenPos().x + 3, ImGui::GetCursorScreenPos().y + 3), max(min.x + side, min.y + side);
  ImGui::Dummy(ImVec2(side + 6, side + 6));
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 fb = ImGui::GetIO().DisplayFramebufferScale;
  dl->AddRectFilled(ImVec2(min.x - 3, min.y - 3), ImVec2(max.x + 3, max.y + 3), page(0.8f), 3);
  dl->AddImage(ui.images->image(whole.key + " minimap", whole.version, shown_map(whole), whole.range, whole.colormap,
                                ImVec2(side * fb.x, side * fb.y)),
               min, max);
  const ImVec2 a(min.x + z.x0 * side, min.y + z.y0 * side);
  const ImVec2 b(a.x + std::max(z.span * side, 2.0f), a.y + std::max(z.span * side, 2.0f));
  dl->AddRect(a, b, ink(1.0f), 0, 0, 2.0f);
  dl->AddRect(ImVec2(min.x - 1, min.y - 1), ImVec2(max.x + 1, max.y + 1), accent_colour(0.8f), 0, 0, 1.0f);
  if (ui.report) ui.report->panels.push_back({"minimap", whole.key, ImVec2(min.x * fb.x, min.y * fb.y), ImVec2(max.x * fb.x, max.y * fb.y)});
}

int zoom_max_cells(float box_pixels) { return std::clamp(int(box_pixels) / 64 * 64, 64, 1024); }

}  // namespace hs::gui
