#include "app/gui/widgets/theme.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/util/file_read.h"

namespace hs::gui {
namespace {

std::string find_font(const char* file) {
  const char* dirs[] = {"/usr/share/fonts/truetype/dejavu/", "/usr/share/fonts/TTF/", "/usr/share/fonts/dejavu/",
                        "/usr/local/share/fonts/"};
  for (const char* d : dirs)
    if (is_regular_file(std::string(d) + file)) return std::string(d) + file;
  return "";
}

// Latin-1, Latin Extended-A/B, IPA, Greek, Cyrillic, general punctuation, arrows, math,
// box drawing and blocks (U+2581 "lower one eighth block" marks SentencePiece spaces), the
// open box U+2423 of a token of spaces (core/text/token_label.h: a space typed at the end makes
// one, and a glyph missing there rebuilt the atlas on the first keystroke), the warning sign
// U+26A0 of the status line, and U+FFFD. Pairs of [first, last], zero-terminated.
const ImWchar kGlyphRanges[] = {
    0x0020, 0x00FF, 0x0100, 0x024F, 0x0250, 0x02FF, 0x0370, 0x03FF, 0x0400, 0x052F, 0x1E00, 0x1EFF,
    0x2000, 0x206F, 0x2070, 0x209F, 0x20A0, 0x20CF, 0x2100, 0x214F, 0x2190, 0x21FF, 0x2200, 0x22FF,
    0x2422, 0x2423, 0x2500, 0x259F, 0x25A0, 0x25FF, 0x26A0, 0x26A0, 0xFFFD, 0xFFFD, 0};

// Fonts for glyphs DejaVu Sans lacks, in the order they are tried: one with CJK (and many other
// scripts), fonts-droid-fallback (Debian, ~4 MB) else fonts-noto-cjk; then symbols and the
// emoji-like pictographs of the 16-bit range (stars, weather, check marks), fonts-symbola's
// monochrome Symbola (ImGui's atlas cannot hold colour emoji nor characters past U+FFFF: those are
// named "U+1F600", core/text/token_label.h). Those installed.
std::vector<std::string> find_fallback_fonts() {
  std::vector<std::string> found;
  const char* cjk[] = {"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
                       "/usr/share/fonts-droid-fallback/truetype/DroidSansFallback.ttf",
                       "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"};
  for (const char* f : cjk)
    if (is_regular_file(f)) {
      found.push_back(f);
      break;
    }
  for (const char* f : {"/usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf", "/usr/share/fonts/truetype/Symbola.ttf"})
    if (is_regular_file(f)) {
      found.push_back(f);
      break;
    }
  return found;
}

Theme g_theme = Theme::dark;  // mirrors ImGui's global style

// One row per style colour: its value in the dark theme and in the light one. kKeep leaves
// ImGui's own base (StyleColorsDark / StyleColorsLight) for that theme.
const ImVec4 kKeep(-1, -1, -1, -1);
struct StyleRow {
  ImGuiCol col;
  ImVec4 dark, light;
};

// The desktop style: a dark, high-contrast look, or dark text on a light page.
const StyleRow kStyle[] = {
    {ImGuiCol_WindowBg, {0.075f, 0.082f, 0.098f, 1.0f}, {0.97f, 0.97f, 0.96f, 1.0f}},
    {ImGuiCol_ChildBg, {0.105f, 0.114f, 0.135f, 1.0f}, {0.93f, 0.93f, 0.92f, 1.0f}},
    {ImGuiCol_PopupBg, {0.13f, 0.14f, 0.17f, 0.98f}, {1.0f, 1.0f, 1.0f, 0.98f}},
    {ImGuiCol_MenuBarBg, kKeep, {0.90f, 0.90f, 0.89f, 1.0f}},
    {ImGuiCol_Border, {0.25f, 0.27f, 0.32f, 1.0f}, {0.55f, 0.56f, 0.60f, 1.0f}},
    {ImGuiCol_Text, {0.93f, 0.94f, 0.96f, 1.0f}, {0.05f, 0.06f, 0.08f, 1.0f}},
    {ImGuiCol_TextDisabled, {0.58f, 0.61f, 0.67f, 1.0f}, {0.30f, 0.32f, 0.36f, 1.0f}},
    {ImGuiCol_FrameBg, {0.17f, 0.18f, 0.22f, 1.0f}, {0.86f, 0.87f, 0.89f, 1.0f}},
    {ImGuiCol_FrameBgHovered, {0.22f, 0.24f, 0.29f, 1.0f}, {0.80f, 0.83f, 0.88f, 1.0f}},
    {ImGuiCol_FrameBgActive, {0.26f, 0.28f, 0.34f, 1.0f}, {0.74f, 0.79f, 0.87f, 1.0f}},
    {ImGuiCol_Button, {0.20f, 0.22f, 0.27f, 1.0f}, {0.84f, 0.85f, 0.88f, 1.0f}},
    {ImGuiCol_ButtonHovered, {0.27f, 0.30f, 0.37f, 1.0f}, {0.76f, 0.80f, 0.88f, 1.0f}},
    {ImGuiCol_ButtonActive, {0.27f, 0.50f, 0.85f, 1.0f}, {0.16f, 0.38f, 0.75f, 1.0f}},
    {ImGuiCol_Header, {0.22f, 0.26f, 0.34f, 1.0f}, {0.78f, 0.83f, 0.92f, 1.0f}},
    {ImGuiCol_HeaderHovered, {0.27f, 0.33f, 0.44f, 1.0f}, {0.70f, 0.77f, 0.90f, 1.0f}},
    {ImGuiCol_HeaderActive, {0.27f, 0.50f, 0.85f, 1.0f}, {0.16f, 0.38f, 0.75f, 1.0f}},
    {ImGuiCol_Tab, {0.14f, 0.15f, 0.18f, 1.0f}, {0.86f, 0.86f, 0.86f, 1.0f}},
    {ImGuiCol_TabHovered, {0.30f, 0.34f, 0.43f, 1.0f}, {0.74f, 0.79f, 0.88f, 1.0f}},
    {ImGuiCol_TabActive, {0.24f, 0.28f, 0.37f, 1.0f}, {0.70f, 0.77f, 0.90f, 1.0f}},
    {ImGuiCol_CheckMark, {1.0f, 0.77f, 0.25f, 1.0f}, {0.78f, 0.42f, 0.0f, 1.0f}},
    {ImGuiCol_SliderGrab, {1.0f, 0.77f, 0.25f, 1.0f}, {0.78f, 0.42f, 0.0f, 1.0f}},
    {ImGuiCol_SliderGrabActive, {1.0f, 0.85f, 0.45f, 1.0f}, {0.60f, 0.32f, 0.0f, 1.0f}},
    {ImGuiCol_TableHeaderBg, {0.15f, 0.16f, 0.20f, 1.0f}, {0.86f, 0.87f, 0.89f, 1.0f}},
    {ImGuiCol_TableRowBgAlt, {1, 1, 1, 0.03f}, {0, 0, 0, 0.04f}},
    {ImGuiCol_PlotHistogram, {1.0f, 0.77f, 0.25f, 1.0f}, {0.78f, 0.42f, 0.0f, 1.0f}},
    {ImGuiCol_Separator, {0.25f, 0.27f, 0.32f, 1.0f}, {0.60f, 0.62f, 0.66f, 1.0f}},
};

// Presentation mode on top of that: a black (white) page, white (black) text, stronger
// secondary text and frames.
const StyleRow kPresentation[] = {
    {ImGuiCol_WindowBg, {0, 0, 0, 1}, {1, 1, 1, 1}},
    {ImGuiCol_ChildBg, {0.06f, 0.06f, 0.07f, 1}, {0.95f, 0.95f, 0.94f, 1}},
    {ImGuiCol_MenuBarBg, {0, 0, 0, 1}, kKeep},
    {ImGuiCol_Text, {1, 1, 1, 1}, {0, 0, 0, 1}},
    {ImGuiCol_TextDisabled, {0.80f, 0.82f, 0.86f, 1}, {0.22f, 0.23f, 0.26f, 1}},
    {ImGuiCol_FrameBg, {0.16f, 0.16f, 0.19f, 1}, kKeep},
    {ImGuiCol_Border, {0.55f, 0.58f, 0.65f, 1}, {0.35f, 0.36f, 0.40f, 1}},
    {ImGuiCol_Button, {0.20f, 0.22f, 0.28f, 1}, kKeep},
    {ImGuiCol_Tab, {0.10f, 0.10f, 0.12f, 1}, kKeep},
    {ImGuiCol_TabActive, {0.30f, 0.36f, 0.50f, 1}, kKeep},
};

template <size_t N>
void set_colours(ImGuiStyle& s, const StyleRow (&rows)[N], Theme theme) {
  for (const StyleRow& r : rows) {
    const ImVec4& v = theme == Theme::light ? r.light : r.dark;
    if (v.w >= 0) s.Colors[r.col] = v;
  }
}

// The colours that mean something, dark / light, in Tone's order. On the light page each is
// darker so it keeps its contrast (tested against WCAG's ratios).
const ImVec4 kTones[][2] = {
    {{1.0f, 0.77f, 0.25f, 1.0f}, {0.64f, 0.31f, 0.0f, 1.0f}},     // accent: titles, the selected head
    {{1.0f, 0.77f, 0.25f, 1.0f}, {0.84f, 0.43f, 0.0f, 1.0f}},     // mark: outlines and frames
    {{0.55f, 0.75f, 1.0f, 1.0f}, {0.12f, 0.33f, 0.70f, 1.0f}},    // secondary: compared blocks' labels
    {{0.43f, 0.59f, 0.90f, 1.0f}, {0.16f, 0.38f, 0.75f, 1.0f}},   // group: every other key/value group
    {{1.0f, 0.45f, 0.40f, 1.0f}, {0.76f, 0.11f, 0.08f, 1.0f}},    // error
    {{1.0f, 0.70f, 0.30f, 1.0f}, {0.62f, 0.33f, 0.0f, 1.0f}},     // warning
    {{0.55f, 0.85f, 0.60f, 1.0f}, {0.08f, 0.45f, 0.18f, 1.0f}},   // success
    {{0.50f, 0.80f, 1.0f, 1.0f}, {0.04f, 0.38f, 0.72f, 1.0f}},    // generated tokens
    {{0.39f, 0.63f, 1.0f, 1.0f}, {0.10f, 0.35f, 0.80f, 1.0f}},    // series_blue
    {{0.35f, 0.82f, 0.59f, 1.0f}, {0.05f, 0.50f, 0.28f, 1.0f}},   // series_green
    {{1.0f, 0.67f, 0.24f, 1.0f}, {0.78f, 0.40f, 0.0f, 1.0f}},     // series_orange
    {{0.67f, 0.67f, 0.71f, 1.0f}, {0.40f, 0.40f, 0.44f, 1.0f}},   // series_grey
};

}  // namespace

Theme current_theme() { return g_theme; }

ImVec4 background_colour() { return ImGui::GetStyle().Colors[ImGuiCol_WindowBg]; }

ImVec4 accent_text() { return tone(Tone::accent); }

ImVec4 tone(Tone t) { return kTones[size_t(t)][g_theme == Theme::light ? 1 : 0]; }

ImU32 tone_u32(Tone t, float alpha) {
  ImVec4 c = tone(t);
  c.w *= alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

ImU32 ink(float alpha) {
  ImVec4 c = ImGui::GetStyle().Colors[ImGuiCol_Text];
  c.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

ImU32 page(float alpha) {
  ImVec4 c = background_colour();
  c.w = alpha;
  return ImGui::ColorConvertFloat4ToU32(c);
}

Colormap present_colormap(Theme theme) { return theme == Theme::light ? Colormap::viridis : Colormap::cividis; }

const char* theme_name(Theme theme) { return theme == Theme::light ? "light" : "dark"; }

bool parse_theme(const std::string& name, Theme& out) {
  if (name == "dark") out = Theme::dark;
  else if (name == "light") out = Theme::light;
  else return false;
  return true;
}

bool in_base_glyph_ranges(unsigned codepoint) {
  for (const ImWchar* r = kGlyphRanges; r[0]; r += 2)
    if (codepoint >= r[0] && codepoint <= r[1]) return true;
  return false;
}

FontRanges font_ranges(const std::vector<ImWchar>& extra) {
  FontRanges out;
  ImFontGlyphRangesBuilder base;
  base.AddRanges(kGlyphRanges);
  ImFontGlyphRangesBuilder more;
  for (const ImWchar c : extra) {
    base.AddChar(c);
    more.AddChar(c);
  }
  ImVector<ImWchar> built;
  base.BuildRanges(&built);
  out.all.assign(built.begin(), built.end());
  if (!extra.empty()) {
    built.clear();
    more.BuildRanges(&built);
    out.fallback.assign(built.begin(), built.end());
  }
  return out;
}

void apply_style(float scale, Theme theme) {
  g_theme = theme;
  ImGuiStyle& s = ImGui::GetStyle();
  s = ImGuiStyle();
  if (theme == Theme::light) ImGui::StyleColorsLight(&s);
  else ImGui::StyleColorsDark(&s);
  s.WindowRounding = 6, s.ChildRounding = 6, s.FrameRounding = 4, s.PopupRounding = 4, s.GrabRounding = 4;
  s.TabRounding = 4, s.ScrollbarRounding = 6;
  s.WindowPadding = ImVec2(12, 10), s.FramePadding = ImVec2(8, 5), s.ItemSpacing = ImVec2(10, 7);
  s.ItemInnerSpacing = ImVec2(6, 5), s.CellPadding = ImVec2(6, 3);
  s.WindowBorderSize = 0, s.ChildBorderSize = 1, s.FrameBorderSize = 0;
  s.ScrollbarSize = 14, s.GrabMinSize = 12;
  set_colours(s, kStyle, theme);
  s.ScaleAllSizes(scale);
}

void apply_presentation_style(float scale, Theme theme) {
  apply_style(1.0f, theme);
  ImGuiStyle& s = ImGui::GetStyle();
  set_colours(s, kPresentation, theme);
  s.FrameBorderSize = 1;
  s.ChildBorderSize = 1;
  s.ScaleAllSizes(scale);
}

float present_font_factor(float font_scale, float screen_lines) {
  // The 1080-line layout scaled to the screen, so a 720-line projector shows the same picture;
  // never below body text of 20 px (factor 20 / 17), the smallest the back of a hall reads.
  return std::max(font_scale * screen_lines / 1080.0f, kPresentBodyFloorPx / 17.0f);
}

namespace {

// A font file's bytes, read once per process: the atlas is rebuilt whenever the text needs a new
// character, and reading the fallback fonts (~6 MB) again for each of three sizes took ~45 ms
// of such a rebuild. Null when the file cannot be read. UI thread only.
const std::string* font_bytes(const std::string& path) {
  static std::map<std::string, std::unique_ptr<const std::string>> cache;
  auto it = cache.find(path);
  if (it == cache.end()) {
    std::unique_ptr<const std::string> bytes;
    try {
      bytes = std::make_unique<const std::string>(read_file(path));
    } catch (const std::exception&) {
    }
    it = cache.emplace(path, std::move(bytes)).first;
  }
  return it->second.get();
}

// ImFontAtlas::AddFontFromFileTTF from the cached bytes (the atlas does not own them).
ImFont* add_font(const std::string& path, float size, ImFontConfig config, const ImWchar* ranges) {
  const std::string* bytes = font_bytes(path);
  if (!bytes || bytes->empty()) return nullptr;
  config.FontDataOwnedByAtlas = false;
  return ImGui::GetIO().Fonts->AddFontFromMemoryTTF(const_cast<char*>(bytes->data()), int(bytes->size()), size,
                                                    &config, ranges);
}

}  // namespace

Fonts load_fonts(float scale, const FontRanges& ranges) {
  ImGuiIO& io = ImGui::GetIO();
  Fonts f;
  const std::string regular = find_font("DejaVuSans.ttf"), bold = find_font("DejaVuSans-Bold.ttf");
  const std::vector<std::string> fallback_files = ranges.fallback.empty() ? std::vector<std::string>() : find_fallback_fonts();
  ImFontConfig config;
  config.OversampleH = 2;
  config.OversampleV = 1;
  const ImWchar* all = ranges.all.data();
  // Glyphs DejaVu lacks come from the fallback fonts, merged into the font just added (ImGui
  // keeps the first font's glyph where several have one). Only the codepoints the text uses are
  // rasterized, so the atlas stays small even with a CJK font of 30,000 glyphs.
  const auto merge_fallback = [&](float size) {
    for (const std::string& file : fallback_files) {  // none installed: labels name those characters
      ImFontConfig merge;
      merge.MergeMode = true;
      merge.OversampleH = 1;
      merge.OversampleV = 1;
      add_font(file, size, merge, ranges.fallback.data());
    }
  };
  if (!regular.empty()) {
    f.body = add_font(regular, 17.0f * scale, config, all);
    if (f.body) merge_fallback(17.0f * scale);
  }
  if (!f.body) {
    ImFontConfig fallback;
    fallback.SizePixels = 13.0f * scale;
    f.body = io.Fonts->AddFontDefault(&fallback);
  }
  const std::string& heavy = bold.empty() ? regular : bold;
  if (!heavy.empty()) {
    f.heading = add_font(heavy, 19.0f * scale, config, all);
    if (f.heading) merge_fallback(19.0f * scale);
    f.title = add_font(heavy, 24.0f * scale, config, all);
    if (f.title) merge_fallback(24.0f * scale);
  }
  // The lesson panel's text presenting: 24 px where the body is 20 px.
  if (!regular.empty()) {
    const float caption_px = 17.0f * scale * kPresentCaptionFloorPx / kPresentBodyFloorPx;
    f.caption = add_font(regular, caption_px, config, all);
    if (f.caption) merge_fallback(caption_px);
  }
  if (!f.caption) f.caption = f.body;
  if (!f.heading) f.heading = f.body;
  if (!f.title) f.title = f.heading;
  return f;
}

}  // namespace hs::gui
