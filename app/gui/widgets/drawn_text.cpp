#include "app/gui/widgets/drawn_text.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>

namespace hs::gui {
namespace {

struct GlyphOf {
  const ImFont* font = nullptr;
  const ImFontGlyph* glyph = nullptr;
};

uint64_t uv_key(ImVec2 uv) {
  uint32_t u = 0, v = 0;
  std::memcpy(&u, &uv.x, 4);
  std::memcpy(&v, &uv.y, 4);
  return (uint64_t(u) << 32) | v;
}

void append_utf8(std::string& s, unsigned c) {
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6)), s += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += char(0xE0 | (c >> 12)), s += char(0x80 | ((c >> 6) & 0x3F)), s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xF0 | (c >> 18)), s += char(0x80 | ((c >> 12) & 0x3F)), s += char(0x80 | ((c >> 6) & 0x3F)),
        s += char(0x80 | (c & 0x3F));
  }
}

bool inside(ImVec2 p0, ImVec2 p1, const ImVec4& clip) {
  const float e = 0.5f;
  return p0.x >= clip.x - e && p0.y >= clip.y - e && p1.x <= clip.z + e && p1.y <= clip.w + e;
}

// A glyph quad as ImGui's PrimRectUV writes it: triangles (i, i+1, i+2) and (i, i+2, i+3).
bool is_quad(const ImDrawIdx* idx, unsigned n, unsigned t) {
  if (t + 6 > n) return false;
  const ImDrawIdx i = idx[t];
  return idx[t + 1] == i + 1 && idx[t + 2] == i + 2 && idx[t + 3] == i && idx[t + 4] == i + 2 && idx[t + 5] == i + 3;
}

}  // namespace

std::vector<DrawnText> collect_drawn_text(const ImDrawData& data, const ImFontAtlas& atlas) {
  // Each glyph's top-left texture coordinate names it (the atlas packs glyphs apart).
  std::unordered_map<uint64_t, GlyphOf> glyphs;
  for (const ImFont* font : atlas.Fonts)
    for (const ImFontGlyph& g : font->Glyphs)
      if (g.Visible) glyphs.emplace(uv_key(ImVec2(g.U0, g.V0)), GlyphOf{font, &g});
  const auto in_some_glyph = [&](ImVec2 uv) {
    for (const ImFont* font : atlas.Fonts)
      for (const ImFontGlyph& g : font->Glyphs)
        if (g.Visible && uv.x >= g.U0 && uv.x <= g.U1 && uv.y >= g.V0 && uv.y <= g.V1 && g.U1 > g.U0) return true;
    return false;
  };
  const ImVec4 display(data.DisplayPos.x, data.DisplayPos.y, data.DisplayPos.x + data.DisplaySize.x,
                       data.DisplayPos.y + data.DisplaySize.y);
  std::vector<DrawnText> out;
  for (int l = 0; l < data.CmdListsCount; ++l) {
    const ImDrawList& list = *data.CmdLists[l];
    const std::string window = list._OwnerName ? list._OwnerName : "";
    DrawnText* run = nullptr;
    float pen = 0, baseline = 0;  // where the run's next glyph would start, and its line
    ImVec2 direction(1, 0);       // the run's writing direction
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback || cmd.TextureId != atlas.TexID) continue;
      const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
      const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
      for (unsigned t = 0; t < cmd.ElemCount; t += 3) {
        if (!is_quad(idx, cmd.ElemCount, t)) continue;
        const ImDrawVert& a = vtx[idx[t]];
        const ImDrawVert& c = vtx[idx[t + 2]];
        const auto found = glyphs.find(uv_key(a.uv));
        const bool whole = found != glyphs.end() && c.uv.x == found->second.glyph->U1 && c.uv.y == found->second.glyph->V1;
        if (!whole) {
          // A glyph ImGui cut on the CPU (its texture coordinates moved): text cut by its clip rectangle.
          if (a.uv.x != c.uv.x && a.uv.y != c.uv.y && in_some_glyph(a.uv)) {
            if (run) run->clipped = true;
            t += 3;
          }
          continue;
        }
        t += 3;  // the quad's second triangle
        // The quad's corners a (top left), b (top right), c, d; rotated text (vertical column
        // labels) turns them, so sizes and the pen's line are measured along the quad's edges.
        const ImDrawVert& b = vtx[idx[t - 2]];
        const ImDrawVert& d = vtx[idx[t + 2]];
        const ImFontGlyph& g = *found->second.glyph;
        const ImVec2 along_edge(b.pos.x - a.pos.x, b.pos.y - a.pos.y), down_edge(d.pos.x - a.pos.x, d.pos.y - a.pos.y);
        const float width = std::sqrt(along_edge.x * along_edge.x + along_edge.y * along_edge.y);
        const float height = std::sqrt(down_edge.x * down_edge.x + down_edge.y * down_edge.y);
        if (width <= 0 || height <= 0 || g.Y1 <= g.Y0) continue;
        const ImVec2 u(along_edge.x / width, along_edge.y / width), n(-u.y, u.x);
        const float scale = height / (g.Y1 - g.Y0);
        const float px = found->second.font->FontSize * scale;
        const float origin = a.pos.x * u.x + a.pos.y * u.y - g.X0 * scale;
        const float line = a.pos.x * n.x + a.pos.y * n.y - g.Y0 * scale;
        const float gap = origin - pen;
        const bool same_run = run && std::fabs(px - run->px) < 0.5f && std::fabs(line - baseline) < 0.5f &&
                              std::fabs(u.x - direction.x) < 0.01f && std::fabs(u.y - direction.y) < 0.01f &&
                              gap > -0.5f && gap < px * 0.7f;
        ImVec2 lo = a.pos, hi = a.pos;
        for (const ImDrawVert* v : {&b, &c, &d})
          lo = ImVec2(std::min(lo.x, v->pos.x), std::min(lo.y, v->pos.y)), hi = ImVec2(std::max(hi.x, v->pos.x), std::max(hi.y, v->pos.y));
        if (!same_run) {
          out.push_back({});
          run = &out.back();
          run->window = window;
          run->px = px;
          run->min = lo, run->max = hi;
          run->clip_min = ImVec2(cmd.ClipRect.x, cmd.ClipRect.y);
          run->clip_max = ImVec2(cmd.ClipRect.z, cmd.ClipRect.w);
        } else if (gap > px * 0.1f) {
          run->text += ' ';
        }
        append_utf8(run->text, g.Codepoint);
        run->min = ImVec2(std::min(run->min.x, lo.x), std::min(run->min.y, lo.y));
        run->max = ImVec2(std::max(run->max.x, hi.x), std::max(run->max.y, hi.y));
        run->clipped = run->clipped || !inside(lo, hi, cmd.ClipRect) || !inside(lo, hi, display);
        direction = u;
        pen = origin + g.AdvanceX * scale;
        baseline = line;
      }
    }
  }
  return out;
}

std::vector<std::string> scrolling_windows() {
  std::vector<std::string> names;
  const ImGuiContext* g = ImGui::GetCurrentContext();
  if (!g) return names;
  for (const ImGuiWindow* w : g->Windows)
    if (w->Active && !w->Hidden && (w->ScrollMax.x > 0.5f || w->ScrollMax.y > 0.5f))
      names.push_back(std::string(w->Name) + " (" + std::to_string(int(w->ScrollMax.x + 0.5f)) + " x " +
                      std::to_string(int(w->ScrollMax.y + 0.5f)) + " px more)");
  return names;
}

bool texts_overlap(const DrawnText& a, const DrawnText& b, float slack) {
  const float w = std::min(a.max.x, b.max.x) - std::max(a.min.x, b.min.x);
  const float h = std::min(a.max.y, b.max.y) - std::max(a.min.y, b.min.y);
  return w > slack && h > slack;
}

}  // namespace hs::gui
