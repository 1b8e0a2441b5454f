#include "app/gui/widgets/labels.h"

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

std::string cell_text(const RunAnalysis& a, int row, int col, float value, const char* what) {
  const std::string w = format_weight(value);
  const auto& labels = a.map_labels;
  if (row < 0 || col < 0 || size_t(row) >= labels.size() || size_t(col) >= labels.size()) return "";
  if (a.long_input()) {
    return "queries " + labels[size_t(row)] + " \xE2\x86\x92 keys " + labels[size_t(col)] + "\nlargest " + what +
           " in this block: " + w;
  }
  return "query " + std::to_string(row) + " \"" + labels[size_t(row)] + "\" \xE2\x86\x92 key " + std::to_string(col) +
         " \"" + labels[size_t(col)] + "\"\n" + what + " " + w;
}

}  // namespace hs::gui
