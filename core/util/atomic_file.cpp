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

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw IoError("cannot read " + path);
  return ss.str();
}

std::string read_file_limited(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) throw IoError("cannot open " + path + ": no such file");
  if (std::filesystem::is_directory(status)) throw IoError("cannot open " + path + ": it is a folder, not a file");
  if (std::filesystem::is_regular_file(status)) {
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > max_bytes) {
      throw FormatError(path + ": " + std::to_string(size) + " bytes is over the limit of " + std::to_string(max_bytes) +
                        " bytes for this kind of file");
    }
  }
  std::string bytes = read_file(path);
  if (bytes.size() > max_bytes) {
    throw FormatError(path + ": over the limit of " + std::to_string(max_bytes) + " bytes for this kind of file");
  }
  return bytes;
}

}  // namespace hs
