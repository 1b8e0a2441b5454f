#include "core/util/memory.h"

#include <unistd.h>

#include <sstream>

#include "core/util/errors.h"

namespace hs {

int64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? int64_t(pages) * int64_t(page) : 0;
}

std::string bytes_text(double bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 4) {
    bytes /= 1024.0;
    ++u;
  }
  std::ostringstream s;
  s.precision(3);
  s << bytes << ' ' << units[u];
  return s.str();
}

namespace {

std::string weights_text(const std::string& what, int64_t values) {
  return what + ": loading its " + std::to_string(values) + " weights needs " + bytes_text(double(values) * 4) +
         " of memory as float32";
}

}  // namespace

void check_weights_fit(const std::string& what, int64_t values) {
  const int64_t memory = physical_memory_bytes();
  if (memory > 0 && double(values) * 4 > double(memory)) {
    throw InputError(weights_text(what, values) + ", more than this machine's " + bytes_text(double(memory)));
  }
}

void throw_weights_out_of_memory(const std::string& what, int64_t values) {
  throw IoError(weights_text(what, values) + ", and the allocation failed (out of memory: close other programs, raise " +
                "ulimit -v, or use a smaller checkpoint)");
}

}  // namespace hs
