#include "app/gui/widgets/labels.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <imgui.h>

#include "core/util/utf8.h"

namespace hs::gui {

namespace {
SpaceMark g_space_mark = SpaceMark::dot;  // set_label_space_mark
}  // namespace

void set_label_space_mark(SpaceMark mark) { g_space_mark = mark; }

TokenLabelOptions screen_label_options() {
  TokenLabelOptions o;
  o.space = g_space_mark;
  // The atlas holds the glyphs the text used so far (UsedGlyphs adds the labels' characters and
  // the app rebuilds it between frames): one it lacks is named rather than drawn as the fallback box.
  if (ImGui::GetCurrentContext() && ImGui::GetFont() && ImGui::GetIO().Fonts->IsBuilt())
    o.drawable = [font = ImGui::GetFont()](uint32_t cp) { return font->FindGlyphNoFallback(ImWchar(cp)) != nullptr; };
  return o;
}

std::string display_token(const std::vector<std::string>& tokens, size_t i) { return token_label(tokens, i, screen_label_options()); }

std::string display_token(const std::string& token) { return token_label({token}, 0, screen_label_options()); }

std::string token_bytes_hint(const std::vector<std::string>& tokens, size_t i) {
  return token_bytes_note(tokens, i, screen_label_options());
}

std::string abbreviate(const std::string& text, int max_chars) {
  if (max_chars <= 0) return "";
  if (int(utf8_length(text)) <= max_chars) return text;
  if (max_chars == 1) return utf8_prefix(text, 1);
  return utf8_prefix(text, size_t(max_chars - 1)) + "\xE2\x80\xA6";  // U+2026
}

std::string format_bytes(int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = -1;
  while (v >= 1024.0 && u < 3) v /= 1024.0, ++u;
  return format(v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

std::string format_weight(float w) {
  if (w != 0.0f && std::fabs(w) < 1e-3f) return format("%.2g", double(w));
  return format("%.3f", double(w));
}

std::vector<float> nice_ticks(float lo, float hi, int max_ticks) {
  std::vector<float> ticks;
  if (!(hi > lo) || max_ticks < 2) return {lo};
  // step = 1, 2 or 5 times a power of ten, the smallest giving at most max_ticks ticks
  const double raw = double(hi - lo) / (max_ticks - 1);
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10 * p;
  for (double m : {1.0, 2.0, 5.0})
    if (m * p >= raw) {
      step = m * p;
      break;
    }
  for (double v = std::ceil(lo / step - 1e-6) * step; v <= hi + step * 1e-6; v += step) ticks.push_back(std::fabs(v) < step * 1e-6 ? 0.0f : float(v));
  return ticks;
}

std::string block_source(const RunAnalysis& a, int layer) {
  const ModelInfo& info = a.run.info;
  std::string model = info.kind == "synthetic" ? format("random weights, seed %llu", (unsigned long long)a.request.seed) : info.name;
  if (info.n_layers > 1) model += format(", layer %d", std::clamp(layer, 0, info.n_layers - 1));
  return model;
}

std::string head_name(int layer, int head, int n_layers) {
  return n_layers > 1 ? format("L%d h%d", layer, head) : format("head %d", head);
}

namespace {

// "query 3 \"·time\" -> key 1 \"…\"\nweight 0.25", then what the two tokens' byte pieces spell.
std::string cell_pair_text(const std::vector<std::string>& labels, int query, int key, float value, const char* what) {
  std::string s = "query " + std::to_string(query) + " \"" + display_token(labels, size_t(query)) + "\" \xE2\x86\x92 key " +
                  std::to_string(key) + " \"" + display_token(labels, size_t(key)) + "\"\n" + what + " " + format_weight(value);
  const std::string q = token_bytes_hint(labels, size_t(query)), k = token_bytes_hint(labels, size_t(key));
  if (!q.empty()) s += "\nquery: " + q;
  if (!k.empty() && k != q) s += "\nkey: " + k;
  return s;
}

// A token as running text: spaces as spaces, byte pieces as the character they spell.
std::string plain_token(const std::vector<std::string>& tokens, int i) {
  TokenLabelOptions o = screen_label_options();
  o.space = SpaceMark::text;
  return abbreviate(token_label(tokens, size_t(i), o), 16);
}

}  // namespace

std::string token_cell_text(const RunAnalysis& a, int query, int key, float value, const char* what) {
  const auto& t = a.run.tokens;
  if (query < 0 || key < 0 || size_t(query) >= t.size() || size_t(key) >= t.size()) return "";
  return cell_pair_text(t, query, key, value, what);
}

namespace {

std::string first_last(const AttentionRun& run, int first, int end) {
  const auto q = [&](int i) { return "\"" + abbreviate(display_token(run.tokens, size_t(i)), 16) + "\""; };
  if (end - first <= 1) return q(first);
  return q(first) + (end - first > 2 ? " \xE2\x80\xA6 " : " ") + q(end - 1);
}

}  // namespace

std::string text_around(const AttentionRun& run, int first, int end, int context) {
  const int T = run.n_tokens();
  first = std::clamp(first, 0, T), end = std::clamp(end, first, T);
  // Subword tokens carry their own spaces; whole words (the synthetic model) are joined by one.
  const std::string sep = run.token_ids.empty() ? " " : "";
  std::string out = first - context > 0 ? "\xE2\x80\xA6" : "";
  for (int i = std::max(0, first - context); i < first; ++i) out += plain_token(run.tokens, i) + sep;
  out += "[";
  for (int i = first; i < end; ++i) {
    if (end - first > 8 && i == first + 3) {
      out += " \xE2\x80\xA6 ";
      i = end - 4;
      continue;
    }
    out += plain_token(run.tokens, i) + (i + 1 < end ? sep : "");
  }
  out += "]";
  for (int i = end; i < std::min(T, end + context); ++i) out += sep + plain_token(run.tokens, i);
  if (end + context < T) out += "\xE2\x80\xA6";
  return out;
}

std::string block_text(const RunAnalysis& a, TokenRegion b, float value, const char* what, int layer, int head) {
  const AttentionRun& run = a.run;
  b = clip_region(run, b);
  std::string s = "queries " + std::to_string(b.row0) + "-" + std::to_string(b.row1 - 1) + " (" + first_last(run, b.row0, b.row1) +
                  ") \xE2\x86\x92 keys " + std::to_string(b.col0) + "-" + std::to_string(b.col1 - 1) + " (" +
                  first_last(run, b.col0, b.col1) + ")\nlargest " + what + " in this block: " + format_weight(value);
  if (layer >= 0 && head >= 0 && layer < run.n_layers() && head < run.n_heads()) {
    const CellPeak p = strongest_cell(run, layer, head, b);
    s += " at query " + std::to_string(p.row) + " \"" + abbreviate(display_token(run.tokens, size_t(p.row)), 16) + "\" \xE2\x86\x92 key " +
         std::to_string(p.col) + " \"" + abbreviate(display_token(run.tokens, size_t(p.col)), 16) + "\"";
  }
  s += "\nqueries: " + text_around(run, b.row0, b.row1) + "\nkeys: " + text_around(run, b.col0, b.col1);
  return s;
}

std::string cell_text(const RunAnalysis& a, int row, int col, float value, const char* what, int layer, int head) {
  const auto& labels = a.map_labels;
  if (row < 0 || col < 0 || size_t(row) >= labels.size() || size_t(col) >= labels.size()) return "";
  if (a.long_input()) {
    const int f = std::max(1, a.run.map_factor);
    return block_text(a, {row * f, (row + 1) * f, col * f, (col + 1) * f}, value, what, layer, head);
  }
  return cell_pair_text(labels, row, col, value, what);
}

}  // namespace hs::gui
