// Query view: pick one or several query tokens (their rows are summed) and see, head by head,
// where they look: one row of bars per head over the key tokens.
#include <algorithm>

#include "app/gui/widgets/draw_util.h"
#include "app/gui/widgets/labels.h"
#include "app/gui/widgets/present_grid.h"
#include "app/gui/panels/panels.h"
#include "app/gui/state/selection.h"
#include "app/gui/widgets/token_notes.h"
#include "app/gui/widgets/theme.h"
#include "core/analysis/query_profile.h"

namespace hs::gui {
namespace {

// Above this many tokens the query is picked by number instead of one button per token.
constexpr int kMaxQueryButtons = 512;

void query_picker(AppState& state, const Derived& d) {
  // Editing starts from what is shown (the last token when nothing was chosen yet).
  std::vector<int> q = shown_queries(state, d.run().n_tokens());
  const std::vector<int> before = q;
  ImGui::AlignTextToFramePadding();
  ImGui::TextDisabled("queries");
  if (d.run().n_tokens() > kMaxQueryButtons) {  // thousands of buttons would stall every frame
    int one = q.empty() ? 0 : q[0];
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
    if (ImGui::InputInt("query token##qi", &one)) q = {std::clamp(one, 0, d.run().n_tokens() - 1)};
    if (!q.empty() && q[0] < d.run().n_tokens()) {
      ImGui::SameLine();
      ImGui::TextUnformatted(("\"" + abbreviate(display_token(d.run().tokens, size_t(q[0])), 24) + "\"").c_str());
    }
    if (q != before) state.query.queries = q;
    return;
  }
  for (int i = 0; i < d.run().n_tokens(); ++i) {
    ImGui::SameLine();
    const bool on = std::find(q.begin(), q.end(), i) != q.end();
    const std::string label = abbreviate(display_token(d.run().tokens, size_t(i)), 14) + "##q" + std::to_string(i);
    if (on) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_HeaderActive));
    if (ImGui::GetContentRegionAvail().x < ImGui::CalcTextSize(label.c_str(), nullptr, true).x + 20) ImGui::NewLine();
    if (ImGui::Button(label.c_str())) {
      // Click: this token alone. Ctrl+click: add or remove it (the rows are summed).
      if (ImGui::GetIO().KeyCtrl || ImGui::GetIO().KeyShift) {
        if (on && q.size() > 1) q.erase(std::find(q.begin(), q.end(), i));
        else if (!on) q.push_back(i);
      } else {
        q = {i};
      }
    }
    if (on) ImGui::PopStyleColor();
  }
  if (ImGui::Button("all")) {
    q.clear();
    for (int i = 0; i < d.run().n_tokens(); ++i) q.push_back(i);
  }
  if (q != before) state.query.queries = q;  // the user's choice, kept as the sentence changes
  if (state.present.active) return;  // no keyboard or mouse hints on a slide
  const char* hint = "click a token; Ctrl+click adds it (rows are summed); \xE2\x86\x90 \xE2\x86\x92 move";
  same_line_if_fits(std::min(text_width(hint), ImGui::GetContentRegionAvail().x * 0.5f));
  wrapped_hint(hint);
}

}  // namespace

void draw_query(AppState& state, const UiContext& ui) {
  const Derived& d = *ui.derived;
  const int heads = d.run().n_heads(), tokens = d.run().n_tokens(), layer = state.layer;
  if (heads == 0 || tokens == 0) return;
  query_picker(state, d);
  if (toolbar_layer_control(state, d.run().n_layers())) {
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    ImGui::InputInt("layer", &state.layer);
    state.layer = std::clamp(state.layer, 0, d.run().n_layers() - 1);
  }
  const std::vector<int> q = shown_queries(state, tokens);
  std::string what = q.size() == 1 ? format("Where \"%s\" (token %d) looks, head by head", display_token(d.run().tokens, size_t(q[0])).c_str(), q[0])
                                   : format("Where %d query tokens look together (their rows summed), head by head", int(q.size()));
  section_title(ui.fonts.heading, what.c_str());
  if (q.size() == 1) draw_next_token_line(d.run(), q[0]);

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float f = ImGui::GetFontSize(), left = ImGui::CalcTextSize("L00 h00 (kv 00)").x + 10;
  // Long inputs: one bar per `per` keys (the largest weight among them), at most a bar per 3 pixels.
  const int max_bars = std::max(1, int((avail.x - left) / 3));
  const int per = tokens > max_bars ? (tokens + max_bars - 1) / max_bars : 1, bars = (tokens + per - 1) / per;
  const Map profile = binned_max(query_profile(d.run(), layer, q), per);  // [H, bars]
  const float top = profile.size() > 0 ? std::max(profile.maxCoeff(), 1e-6f) : 1.0f;
  ImFont* font = ImGui::GetFont();
  const bool present = state.present.active;
  const float label_px = present ? std::max(f * 0.9f, present_label_min()) : f * 0.9f;  // token labels
  float label_w = 0;
  if (per == 1)
    for (size_t i = 0; i < d.run().tokens.size(); ++i)
      label_w = std::max(label_w, font->CalcTextSizeA(label_px, FLT_MAX, 0, abbreviate(display_token(d.run().tokens, i), 12).c_str()).x);
  const float col_w = (avail.x - left) / bars;
  const bool rotate = label_w + 6 > col_w;
  const float bottom = (rotate ? label_w : f) + 10;
  const float row_h = std::clamp((avail.y - bottom) / heads, 6.0f, f * 5.0f);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("bars", ImVec2(avail.x, row_h * heads + bottom));
  const bool hovered = ImGui::IsItemHovered();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int group = heads_per_group(d.run().info);
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int h = 0; h < heads; ++h) {
    const float y0 = o.y + h * row_h, y1 = y0 + row_h - std::max(2.0f, row_h * 0.12f);
    if (h % 2 == 0) dl->AddRectFilled(ImVec2(o.x, y0), ImVec2(o.x + avail.x, y0 + row_h), ink(0.03f));
    if (row_h >= f * 0.9f) {
      std::string name = head_name(layer, h, d.run().n_layers());
      if (group > 1) name += format(" (kv %d)", h / group);
      dl->AddText(ImVec2(o.x, (y0 + y1) * 0.5f - f * 0.5f), h == state.head ? accent_colour() : ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    for (int j = 0; j < bars; ++j) {
      const float v = profile(h, j), t = v / top;
      const float x0 = o.x + left + j * col_w + col_w * 0.1f, x1 = o.x + left + (j + 1) * col_w - col_w * 0.1f;
      const float yb = y1 - t * (y1 - y0 - 2);
      dl->AddRectFilled(ImVec2(x0, yb), ImVec2(x1, y1), colormap_u32(state.scale.colormap, 0.25f + 0.75f * t), 2);
      // The weight above its bar when there is room for it; presenting, at the labels' 20 px
      // floor and only the weights that print as more than 0.00 (the room reads the bars).
      const std::string value = format("%.2f", double(v));
      const float small = present ? std::max(f * 0.75f, present_label_min()) : f * 0.75f;
      const ImVec2 vs = font->CalcTextSizeA(small, FLT_MAX, 0, value.c_str());
      if (v > 0.0f && row_h >= f * 2.6f && vs.x + 4 < x1 - x0 && (!present || value != "0.00")) {
        const bool above = yb - vs.y - 1 >= y0;  // else inside the top of a tall bar
        dl->AddText(font, small, ImVec2((x0 + x1 - vs.x) * 0.5f, above ? yb - vs.y - 1 : yb + 1),
                    above ? dim_text_colour() : text_colour_on(state.scale.colormap, 0.25f + 0.75f * t), value.c_str());
      }
      if (hovered && mouse.x >= x0 && mouse.x < x1 && mouse.y >= y0 && mouse.y < y0 + row_h) {
        if (per > 1)
          ImGui::SetTooltip("%s\nkeys %d-%d\nlargest weight %s", head_name(layer, h, d.run().n_layers()).c_str(), j * per,
                            std::min(tokens, (j + 1) * per) - 1, format_weight(v).c_str());
        else
          ImGui::SetTooltip("%s\nkey %d \"%s\"\nweight %s", head_name(layer, h, d.run().n_layers()).c_str(), j,
                            display_token(d.run().tokens, size_t(j)).c_str(), format_weight(v).c_str());
      }
    }
    dl->AddLine(ImVec2(o.x + left, y1), ImVec2(o.x + avail.x, y1), ink(0.16f));
  }
  const float yl = o.y + heads * row_h + 4;
  if (per > 1) {
    dl->AddText(font, label_px, ImVec2(o.x + left, yl),
                ImGui::GetColorU32(ImGuiCol_TextDisabled),
                format("keys 0 .. %d, %d per bar (each bar is the largest exact weight among them)", tokens - 1, per).c_str());
  }
  for (int j = 0; j < (per == 1 ? tokens : 0); ++j) {
    const std::string s = abbreviate(display_token(d.run().tokens, size_t(j)), 12);
    const float cx = o.x + left + (j + 0.5f) * col_w;
    const bool is_query = std::find(q.begin(), q.end(), j) != q.end();
    const ImU32 c = is_query ? accent_colour() : is_generated(d.run(), j) ? generated_colour() : ImGui::GetColorU32(ImGuiCol_Text);
    if (rotate) add_text_up(dl, font, label_px, ImVec2(cx, yl), c, s.c_str());
    else dl->AddText(font, label_px, ImVec2(cx - font->CalcTextSizeA(label_px, FLT_MAX, 0, s.c_str()).x * 0.5f, yl), c, s.c_str());
  }
}

}  // namespace hs::gui
