#include "core/util/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util/errors.h"

namespace hs {

void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty()) throw IoError("cannot write a file with an empty name");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw IoError("cannot write " + path + ": it is a folder");
    // A device or pipe (/dev/null, /dev/stdout, a FIFO): renaming a temporary file over it would
    // replace the device itself, so write to it directly.
    std::ofstream out(path, std::ios::binary);
    if (!out) throw IoError("cannot write " + path + ": " + std::strerror(errno));
    write(out);
    out.flush();
    if (!out) throw IoError("cannot write " + path);
    return;
  }
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      throw IoError("cannot write " + path + ": " + std::strerror(errno));
    }
    try {
      write(out);
    } catch (...) {
      out.close();
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (!out) {
      const std::string why = std::strerror(errno);
      out.close();
      std::remove(tmp.c_str());
      throw IoError("cannot write " + path + ": " + why);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw IoError("cannot write " + path + ": " + why);
  }
}

void write_file_atomic(const std::string& path, const std::string& bytes) {
  write_file_atomic(path, [&](std::ostream& out) { out.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

}  // namespace hs
