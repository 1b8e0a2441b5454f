#include "core/util/memory_info.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "core/util/errors.h"
#include "core/util/runtime_config.h"

namespace hs {
namespace {

// "512M" -> 512 MiB; -1 when the text is not a non-negative number with an optional unit.
int64_t parse_bytes(const std::string& text) {
  const char* s = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(s, &end);
  if (end == s || !(v >= 0.0) || !std::isfinite(v)) return -1;
  std::string unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  double scale = 1.0;
  if (unit.empty() || unit == "B") scale = 1.0;
  else if (unit == "K" || unit == "KiB" || unit == "k") scale = 1024.0;
  else if (unit == "M" || unit == "MiB") scale = 1024.0 * 1024.0;
  else if (unit == "G" || unit == "GiB") scale = 1024.0 * 1024.0 * 1024.0;
  else return -1;
  const double bytes = v * scale;
  if (bytes > 9.0e18) return -1;
  return int64_t(bytes);
}

}  // namespace

AvailableMemory available_memory() {
  AvailableMemory out;
  const RuntimeConfig config = runtime_config();
  if (const std::string& text = config.memory_available; !text.empty()) {
    out.bytes = parse_bytes(text);
    if (out.bytes < 0) {
      throw InputError(config.memory_available_source + " is \"" + text +
                       "\"; expected a number of bytes, optionally with K, M or G (e.g. 512M)");
    }
    out.source = config.memory_available_source;
    return out;
  }
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t value = 0;
  std::string unit;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") {
      out.bytes = value * 1024;  // the kernel writes kB (KiB)
      out.source = "MemAvailable in /proc/meminfo";
      return out;
    }
  }
  return out;
}

std::string format_bytes(int64_t bytes) {
  char buf[48];
  const double b = double(bytes);
  // Three significant digits at most: "1.4 GiB", "12.5 MiB", "812 MiB".
  const auto scaled = [&](double v, const char* unit) {
    std::snprintf(buf, sizeof buf, v < 10.0 ? "%.1f %s" : "%.0f %s", v, unit);
  };
  if (bytes >= (int64_t(1) << 30)) scaled(b / double(int64_t(1) << 30), "GiB");
  else if (bytes >= (int64_t(1) << 20)) scaled(b / double(int64_t(1) << 20), "MiB");
  else if (bytes >= 1024) scaled(b / 1024.0, "KiB");
  else std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  return buf;
}

}  // namespace hs
