#include "app/gui/widgets/chart.h"

#include <algorithm>
#include <cmath>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/theme.h"

namespace hs::gui {

int draw_chart(const ChartSpec& spec, ImVec2 size) {
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(spec.title.c_str(), ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float f = ImGui::GetFontSize();
  const int n = int(spec.x_labels.size());
  // The title on one line within the chart's width; the whole of it (and the tooltip) on hover.
  std::string title = spec.title;
  const bool cut = ImGui::CalcTextSize(title.c_str()).x > size.x;
  if (cut) {
    while (!title.empty() && ImGui::CalcTextSize((title + "\xE2\x80\xA6").c_str()).x > size.x) {
      title.pop_back();
      while (!title.empty() && (static_cast<unsigned char>(title.back()) & 0xC0) == 0x80) title.pop_back();  // whole code points
    }
    title += "\xE2\x80\xA6";
  }
  dl->AddText(ImGui::GetFont(), f, origin, ImGui::GetColorU32(ImGuiCol_Text), title.c_str());
  const ImVec2 mouse_at = ImGui::GetIO().MousePos;
  if (hovered && mouse_at.y < origin.y + f * 1.3f && (cut || !spec.tooltip.empty())) {
    const std::string text = cut ? spec.title + (spec.tooltip.empty() ? "" : "\n" + spec.tooltip) : spec.tooltip;
    ImGui::SetTooltip("%s", text.c_str());
  }
  if (n == 0) return -1;

  float lo = spec.log_y ? INFINITY : spec.y_min, hi = -INFINITY;
  for (const ChartSeries& s : spec.series)
    for (float v : s.values)
      if (std::isfinite(v) && (!spec.log_y || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (!std::isfinite(hi)) hi = 1, lo = spec.log_y ? 0.1f : 0;
  if (spec.log_y) {
    lo = std::pow(10.0f, std::floor(std::log10(lo))), hi = std::pow(10.0f, std::ceil(std::log10(hi)));
    if (hi <= lo) hi = lo * 10;
  } else if (hi <= lo) {
    hi = lo + 1;
  } else {
    hi += (hi - lo) * 0.08f;
  }
  const float bottom = f * (spec.x_caption.empty() ? 1.6f : 2.8f);
  const float plot_top = origin.y + f * 1.7f, plot_bottom = origin.y + size.y - bottom;
  // y ticks first: the left margin fits the widest tick label.
  std::vector<float> ticks;
  if (spec.log_y) {
    // Every decade while they are a line and a bit apart; every second (third, ...) in a short plot.
    const int decades = int(std::lround(std::log10(hi / lo)));
    const float room = std::max(plot_bottom - plot_top, 1.0f);
    const int every = std::max(1, int(std::ceil(float(decades + 1) * f * 1.25f / room)));
    for (int k = 0; k <= decades; k += every) ticks.push_back(lo * std::pow(10.0f, float(k)));
  } else {
    ticks = nice_ticks(lo, hi, std::clamp(int((plot_bottom - plot_top) / (f * 1.8f)), 2, 5));
    // A short chart still reads: the bottom and a round value near the top at least.
    if (ticks.size() < 2) ticks = {lo, float(std::stod(format("%.2g", double(hi) / 1.08)))};
  }
  float left = ImGui::CalcTextSize("0.0").x;
  for (float v : ticks) left = std::max(left, ImGui::CalcTextSize(format("%.3g", double(v)).c_str()).x);
  left += 12;
  const ImVec2 pmin(origin.x + left, plot_top), pmax(origin.x + size.x - 8, plot_bottom);
  if (pmax.x - pmin.x < 20 || pmax.y - pmin.y < 20) return -1;
  const float step = (pmax.x - pmin.x) / float(n);
  auto px = [&](float i) { return pmin.x + (i + 0.5f) * step; };
  auto py = [&](float v) {
    const float t = spec.log_y ? std::log(v / lo) / std::log(hi / lo) : (v - lo) / (hi - lo);
    return pmax.y - std::clamp(t, 0.0f, 1.0f) * (pmax.y - pmin.y);
  };
  dl->AddRectFilled(pmin, pmax, ink(0.03f), 4);
  if (spec.highlight_x >= 0 && spec.highlight_x < n)
    dl->AddRectFilled(ImVec2(px(float(spec.highlight_x)) - step * 0.5f, pmin.y), ImVec2(px(float(spec.highlight_x)) + step * 0.5f, pmax.y),
                      accent_colour(0.14f));
  // y grid and tick labels
  for (float v : ticks) {
    const float y = py(v);
    dl->AddLine(ImVec2(pmin.x, y), ImVec2(pmax.x, y), ink(0.09f));
    const std::string s = format("%.3g", double(v));
    dl->AddText(ImVec2(pmin.x - 6 - ImGui::CalcTextSize(s.c_str()).x, y - f * 0.5f), dim_text_colour(), s.c_str());
  }
  // x labels, thinned when crowded
  const float widest = ImGui::CalcTextSize("00").x + 6;
  const int every = std::max(1, int(std::ceil(widest / step)));
  for (int i = 0; i < n; i += every) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.x_labels[size_t(i)].c_str());
    dl->AddText(ImVec2(px(float(i)) - ts.x * 0.5f, pmax.y + 4), i == spec.highlight_x ? accent_colour() : dim_text_colour(),
                spec.x_labels[size_t(i)].c_str());
  }
  if (!spec.x_caption.empty()) {
    const ImVec2 ts = ImGui::CalcTextSize(spec.x_caption.c_str());
    dl->AddText(ImVec2((pmin.x + pmax.x - ts.x) * 0.5f, pmax.y + f * 1.35f), dim_text_colour(), spec.x_caption.c_str());
  }
  // The legend's left edge (it sits in the plot's top right), so the marker label can keep clear.
  float legend_left = pmax.x - 6;
  for (const ChartSeries& s : spec.series)
    if (spec.series.size() >= 2 && !s.name.empty()) legend_left -= ImGui::CalcTextSize(s.name.c_str()).x + f * 1.9f;
  ImVec2 marker_at;
  if (spec.marker_x >= 0) {
    const float x = pmin.x + spec.marker_x * step;
    for (float y = pmin.y; y < pmax.y; y += 8) dl->AddLine(ImVec2(x, y), ImVec2(x, std::min(y + 4, pmax.y)), accent_colour(), 1.5f);
    // Beside the line at the top, on whichever side stays inside the plot and clear of the legend;
    // with no room on either side, right of the line a row below the legend. Never over the y
    // ticks left of the plot.
    const float w = ImGui::CalcTextSize(spec.marker_label.c_str()).x;
    const bool right_fits = x + 4 + w < legend_left, left_fits = x - 6 - w >= pmin.x;
    const float lx = right_fits || !left_fits ? x + 4 : x - 4 - w;
    const float ly = right_fits || left_fits ? pmin.y + 2 : pmin.y + 4 + f * 1.2f;
    marker_at = ImVec2(lx, ly);
  }
  // The marker's label goes over the series (drawn below), on its backdrop: a line crossing its
  // letters would make them hard to read.
  const auto marker_label = [&] {
    if (spec.marker_x < 0) return;
    const float w = ImGui::CalcTextSize(spec.marker_label.c_str()).x;
    dl->AddRectFilled(ImVec2(marker_at.x - 2, marker_at.y), ImVec2(marker_at.x + w + 2, marker_at.y + f), page(0.8f), 3);
    dl->AddText(marker_at, accent_colour(), spec.marker_label.c_str());
  };
  // series (later ones on top), with a legend inside the plot's top right
  float legend_x = pmax.x - 6;
  const auto segment = [&](const ChartSeries& s, ImVec2 p0, ImVec2 p1, float width) {
    if (s.dashed) add_dashed_line(dl, p0, p1, s.colour, width);
    else dl->AddLine(p0, p1, s.colour, width);
  };
  for (const ChartSeries& s : spec.series) {
    for (int i = 0; i + 1 < int(s.values.size()); ++i) {
      const float a = s.values[size_t(i)], b = s.values[size_t(i + 1)];
      if (std::isfinite(a) && std::isfinite(b) && (!spec.log_y || (a > 0 && b > 0)))
        segment(s, ImVec2(px(float(i)), py(a)), ImVec2(px(float(i + 1)), py(b)), s.width);
    }
    for (int i = 0; i < int(s.values.size()) && s.markers; ++i) {
      const float v = s.values[size_t(i)];
      if (std::isfinite(v) && (!spec.log_y || v > 0)) dl->AddCircleFilled(ImVec2(px(float(i)), py(v)), 3.5f, s.colour);
    }
  }
  marker_label();
  // The legend: each series' line as drawn (a band, a dash) beside its name, on a backdrop.
  for (auto it = spec.series.rbegin(); it != spec.series.rend(); ++it) {
    if (spec.series.size() < 2 || it->name.empty()) continue;
    legend_x -= ImGui::CalcTextSize(it->name.c_str()).x + f * 1.9f;
    const float mid = pmin.y + 4 + f * 0.65f;
    const float text_w = ImGui::CalcTextSize(it->name.c_str()).x;
    dl->AddRectFilled(ImVec2(legend_x - 2, pmin.y + 3), ImVec2(legend_x + f * 1.3f + text_w + 2, pmin.y + 5 + f * 1.1f), page(0.75f), 3);
    segment(*it, ImVec2(legend_x, mid), ImVec2(legend_x + f * 1.1f, mid), std::min(it->width, f * 0.5f));
    dl->AddText(ImVec2(legend_x + f * 1.3f, pmin.y + 4), ImGui::GetColorU32(ImGuiCol_Text), it->name.c_str());
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && mouse.x >= pmin.x && mouse.x < pmax.x) return std::clamp(int((mouse.x - pmin.x) / step), 0, n - 1);
  return -1;
}

}  // namespace hs::gui
