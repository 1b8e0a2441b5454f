#include "core/util/memory_info.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/util/errors.h"
#include "core/util/runtime_config.h"

namespace hs {

int64_t parse_byte_size(const std::string& text) {
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

namespace {

// The first line of a small file ("" when it cannot be read).
std::string first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// A whole non-negative number from a cgroup file; -1 for "max", a missing file or anything else.
int64_t cgroup_number(const std::string& path) {
  const std::string text = first_line_of(path);
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19) return -1;
  return int64_t(std::stoll(text));
}

// The value of `key` in a cgroup's memory.stat ("inactive_file 123"), 0 when absent.
int64_t memory_stat_value(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string k;
  int64_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

struct CgroupFiles {
  const char* version;   // "v2", "v1"
  const char* limit;     // memory.max, memory.limit_in_bytes
  const char* usage;     // memory.current, memory.usage_in_bytes
  const char* inactive;  // memory.stat key of reclaimable file pages
};

// The tightest headroom over `dir` and its ancestors up to `base` (a cgroup's limit binds its
// children). Limits of 2^60 bytes or more are v1's "no limit".
void tightest_cgroup_limit(const std::string& base, std::string dir, const CgroupFiles& files, AvailableMemory& out) {
  while (dir.size() >= base.size()) {
    const int64_t limit = cgroup_number(dir + "/" + files.limit);
    if (limit >= 0 && limit < (int64_t(1) << 60)) {
      const int64_t usage = std::max<int64_t>(0, cgroup_number(dir + "/" + files.usage));
      const int64_t inactive = memory_stat_value(dir + "/memory.stat", files.inactive);
      const int64_t left = std::max<int64_t>(0, limit - usage + std::min(inactive, usage));
      if (out.bytes < 0 || left < out.bytes) {
        out.bytes = left;
        out.source = std::string("cgroup ") + files.version + " " + dir + "/" + files.limit + ": limit " + format_bytes(limit) +
                     ", " + format_bytes(usage) + " in use, " + format_bytes(std::min(inactive, usage)) + " of it reclaimable";
      }
    }
    if (dir == base) break;
    const size_t slash = dir.find_last_of('/');
    if (slash == std::string::npos || slash < base.size()) dir = base;
    else dir = dir.substr(0, slash);
  }
}

// The process's VmSize from /proc/self/status, in bytes (0 when unknown).
int64_t address_space_in_use() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmSize:", 0) == 0) return int64_t(std::strtoll(line.c_str() + 7, nullptr, 10)) * 1024;
  return 0;
}

void read_address_space(AvailableMemory& out) {
  struct rlimit r {};
  if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return;
  out.address_space_limit = int64_t(std::min<rlim_t>(r.rlim_cur, rlim_t(INT64_MAX)));
  out.address_space_used = address_space_in_use();
}

int64_t mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  int64_t value = 0;
  std::string unit;
  while (in >> key >> value) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return value * 1024;  // the kernel writes kB (KiB)
  }
  return -1;
}

std::string whole_file(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

AvailableMemory cgroup_memory(const std::string& proc_self_cgroup, const std::string& root) {
  static const CgroupFiles v2{"v2", "memory.max", "memory.current", "inactive_file"};
  static const CgroupFiles v1{"v1", "memory.limit_in_bytes", "memory.usage_in_bytes", "total_inactive_file"};
  AvailableMemory out;
  out.counts_mapped = false;
  std::istringstream lines(proc_self_cgroup);
  std::string line;
  while (std::getline(lines, line)) {
    // "ID:CONTROLLERS:PATH"; v2's line is "0::PATH".
    const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
    if (b == std::string::npos) continue;
    const std::string id = line.substr(0, a), controllers = line.substr(a + 1, b - a - 1);
    std::string path = line.substr(b + 1);
    if (path.empty() || path == "/") path = "";
    const bool is_v2 = id == "0" && controllers.empty();
    const bool is_v1 = ("," + controllers + ",").find(",memory,") != std::string::npos;
    if (!is_v2 && !is_v1) continue;
    const std::vector<std::string> bases =
        is_v2 ? std::vector<std::string>{root, root + "/unified"} : std::vector<std::string>{root + "/memory"};
    for (const std::string& base : bases) {
      // Inside a container the path may name the host's cgroup while the container sees its own at the base.
      std::ifstream probe(base + path + "/" + (is_v2 ? v2.limit : v1.limit));
      tightest_cgroup_limit(base, probe ? base + path : base, is_v2 ? v2 : v1, out);
    }
  }
  return out;
}

AvailableMemory available_memory() {
  AvailableMemory out;
  const RuntimeConfig config = runtime_config();
  if (const std::string& text = config.memory_available; !text.empty()) {
    out.bytes = parse_byte_size(text);
    if (out.bytes < 0) {
      throw InputError(config.memory_available_source + " is \"" + text +
                       "\"; expected a number of bytes, optionally with K, M or G (e.g. 512M)");
    }
    out.source = config.memory_available_source;
  } else {
    out.bytes = mem_available_bytes();
    if (out.bytes >= 0) out.source = "MemAvailable in /proc/meminfo";
    const AvailableMemory group = cgroup_memory(whole_file("/proc/self/cgroup"), "/sys/fs/cgroup");
    if (group.bytes >= 0 && (out.bytes < 0 || group.bytes < out.bytes)) out = group;
  }
  read_address_space(out);
  return out;
}

void check_address_space_for_mapping(const std::string& path, int64_t file_bytes) {
  AvailableMemory limit;
  read_address_space(limit);
  const int64_t left = limit.address_space_left();
  if (left < 0 || file_bytes <= left) return;
  throw InputError(path + ": this " + format_bytes(file_bytes) + " file is mapped into memory whole, and the address-space " +
                   "limit (RLIMIT_AS: ulimit -v, prlimit --as) is " + format_bytes(limit.address_space_limit) + " with " +
                   format_bytes(limit.address_space_used) + " of it in use: " + format_bytes(left) +
                   " left. Raise the limit or use a smaller or more quantized file");
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
