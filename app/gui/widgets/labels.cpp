#include "app/gui/widgets/labels.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

#include "core/util/utf8.h"

namespace hs::gui {

std::string display_token(const std::string& token) {
  if (token.empty()) return "\xE2\x88\x85";  // U+2205 empty set
  std::string out;
  for (char c : token) {
    if (c == '\n') out += "\xE2\x86\xB5";         // U+21B5
    else if (c == '\t') out += "\xE2\x87\xA5";    // U+21E5
    else if (c == '\r') continue;
    else if (static_cast<unsigned char>(c) < 0x20) out += "\xEF\xBF\xBD";  // U+FFFD
    else out += c;
  }
  return utf8_repair(out);
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

std::string head_name(int layer, int head, int n_layers) {
  return n_layers > 1 ? format("L%d h%d", layer, head) : format("head %d", head);
}

std::string token_cell_text(const RunAnalysis& a, int query, int key, float value, const char* what) {
  const auto& t = a.run.tokens;
  if (query < 0 || key < 0 || size_t(query) >= t.size() || size_t(key) >= t.size()) return "";
  return "query " + std::to_string(query) + " \"" + t[size_t(query)] + "\" \xE2\x86\x92 key " + std::to_string(key) + " \"" +
         t[size_t(key)] + "\"\n" + what + " " + format_weight(value);
}

namespace {

// A token as text: subword markers (SentencePiece's U+2581, GPT-2's U+0120) become spaces.
std::string plain_token(const std::string& token) {
  std::string s = display_token(token);
  for (const char* mark : {"\xE2\x96\x81", "\xC4\xA0"})
    for (size_t p = s.find(mark); p != std::string::npos; p = s.find(mark, p)) s.replace(p, std::string(mark).size(), " ");
  return abbreviate(s, 16);
}

std::string first_last(const AttentionRun& run, int first, int end) {
  const auto q = [&](int i) { return "\"" + abbreviate(display_token(run.tokens[size_t(i)]), 16) + "\""; };
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
  for (int i = std::max(0, first - context); i < first; ++i) out += plain_token(run.tokens[size_t(i)]) + sep;
  out += "[";
  for (int i = first; i < end; ++i) {
    if (end - first > 8 && i == first + 3) {
      out += " \xE2\x80\xA6 ";
      i = end - 4;
      continue;
    }
    out += plain_token(run.tokens[size_t(i)]) + (i + 1 < end ? sep : "");
  }
  out += "]";
  for (int i = end; i < std::min(T, end + context); ++i) out += sep + plain_token(run.tokens[size_t(i)]);
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
    s += " at query " + std::to_string(p.row) + " \"" + abbreviate(display_token(run.tokens[size_t(p.row)]), 16) + "\" \xE2\x86\x92 key " +
         std::to_string(p.col) + " \"" + abbreviate(display_token(run.tokens[size_t(p.col)]), 16) + "\"";
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
  return "query " + std::to_string(row) + " \"" + labels[size_t(row)] + "\" \xE2\x86\x92 key " + std::to_string(col) +
         " \"" + labels[size_t(col)] + "\"\n" + what + " " + format_weight(value);
}

}  // namespace hs::gui
