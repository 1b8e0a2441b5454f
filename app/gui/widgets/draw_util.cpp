#include "app/gui/widgets/draw_util.h"

#include <algorithm>
#include <cmath>

#include "app/gui/widgets/theme.h"
#include "core/render/category_palette.h"

namespace hs::gui {

void add_text_up(ImDrawList* dl, ImFont* font, float size, ImVec2 top_centre, ImU32 colour, const char* text) {
  const ImVec2 extent = font->CalcTextSizeA(size, FLT_MAX, 0.0f, text);
  // Laid out unrotated at `anchor` (with a clip rect wide enough that no glyph is dropped),
  // then each vertex is turned (x, y) -> (y, -x) about the anchor, so the text's right end
  // (x = w) lands at y = top and its start at y = top + w.
  const ImVec2 anchor(top_centre.x - extent.y * 0.5f, top_centre.y + extent.x);
  const ImVec2 clip_min = dl->GetClipRectMin(), clip_max = dl->GetClipRectMax();
  dl->PushClipRect(ImVec2(clip_min.x - extent.x, clip_min.y - extent.x), ImVec2(clip_max.x + extent.x, clip_max.y + extent.x));
  const int first = dl->VtxBuffer.Size;
  dl->AddText(font, size, anchor, colour, text);
  for (int i = first; i < dl->VtxBuffer.Size; ++i) {
    ImDrawVert& v = dl->VtxBuffer[i];
    const ImVec2 d(v.pos.x - anchor.x, v.pos.y - anchor.y);
    v.pos = ImVec2(anchor.x + d.y, anchor.y - d.x);
  }
  dl->PopClipRect();
}

ImU32 colormap_u32(Colormap c, float t, float alpha) {
  const Rgb8 rgb = colormap_lookup(c, t);
  return IM_COL32(rgb.r, rgb.g, rgb.b, int(alpha * 255.0f + 0.5f));
}

ImU32 category_u32(int k) {
  const Rgb8 rgb = category_colour(k);
  if (rgb.r == 0 && rgb.g == 0 && rgb.b == 0) return ImGui::GetColorU32(ImGuiCol_Text);
  return IM_COL32(rgb.r, rgb.g, rgb.b, 255);
}

void add_dashed_line(ImDrawList* dl, ImVec2 a, ImVec2 b, ImU32 colour, float thickness) {
  const float dx = b.x - a.x, dy = b.y - a.y, length = std::sqrt(dx * dx + dy * dy);
  if (!(length > 0)) return;
  const float dash = 3 * thickness, gap = 2 * thickness;
  for (float t = 0; t < length; t += dash + gap) {
    const float e = std::min(t + dash, length);
    dl->AddLine(ImVec2(a.x + dx * t / length, a.y + dy * t / length), ImVec2(a.x + dx * e / length, a.y + dy * e / length),
                colour, thickness);
  }
}

ImU32 text_colour_on(Colormap c, float t) {
  const Rgb8 rgb = colormap_lookup(c, t);
  const float luma = 0.299f * rgb.r + 0.587f * rgb.g + 0.114f * rgb.b;
  return luma > 140.0f ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

void coloured_value_cell(Colormap c, float t, const char* text, float alpha) {
  ImGui::TableSetBgColor(ImGuiTableBgTarget_CellBg, colormap_u32(c, t, alpha));
  ImGui::PushStyleColor(ImGuiCol_Text, text_colour_on(c, t));
  ImGui::TextUnformatted(text);
  ImGui::PopStyleColor();
}

void section_title(ImFont* font, const char* title, const char* explanation) {
  if (font) ImGui::PushFont(font);
  ImGui::TextUnformatted(title);
  if (font) ImGui::PopFont();
  if (explanation) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", explanation);
    ImGui::PopStyleColor();
  }
}

void same_line_if_fits(float width, float spacing) {
  ImGui::SameLine(0, spacing);
  if (ImGui::GetContentRegionAvail().x < width) ImGui::NewLine();
}

void same_line_if_room(const char* label) { same_line_if_fits(checkbox_width(label)); }

float checkbox_width(const char* label) {
  return ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label, nullptr, true).x;
}

float labelled_width(float field, const char* label) {
  const float text = ImGui::CalcTextSize(label, nullptr, true).x;
  return field + (text > 0 ? ImGui::GetStyle().ItemInnerSpacing.x + text : 0.0f);
}

float text_width(const char* text) { return ImGui::CalcTextSize(text).x; }

void wrapped_hint(const char* text) {
  ImGui::PushTextWrapPos(0.0f);
  ImGui::TextDisabled("%s", text);
  ImGui::PopTextWrapPos();
}

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
  }
}

ImU32 accent_colour(float alpha) {
  // Amber on dark; on the light theme a darker orange that still stands out on white.
  return tone_u32(Tone::mark, alpha);
}

ImU32 dim_text_colour() { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }

}  // namespace hs::gui
