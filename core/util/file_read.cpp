#include "core/util/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/util/errors.h"

namespace hs {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe (FIFO)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Why stat() or open() failed, worded to follow "PATH ".
std::string why_not(int err) {
  switch (err) {
    case ENOENT: return "does not exist (no such file or folder)";
    case ENOTDIR: return "does not exist (no such file or folder: a part of the path is not a folder)";
    case ELOOP: return "is a symlink loop (too many levels of symbolic links)";
    case EACCES: return "is not accessible (permission denied)";
    case ENAMETOOLONG: return "has a name that is too long";
    default: return std::string("cannot be opened (") + std::strerror(err) + ")";
  }
}

}  // namespace

std::string not_a_file_reason(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return why_not(errno);
  if (S_ISREG(st.st_mode)) return "";
  return "is " + kind_of(st.st_mode) + ", not a file";
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_folder(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

OpenedFile::OpenedFile(const std::string& path) {
  if (path.empty()) throw IoError("cannot read a file with an empty name");
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd_ < 0) {
    const int err = errno;
    throw IoError("cannot read " + path + ": it " + why_not(err));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    const std::string kind = kind_of(st.st_mode);
    ::close(fd_);
    fd_ = -1;
    throw IoError("cannot read " + path + ": it is " + kind + ", not a file");
  }
  // Regular files ignore O_NONBLOCK; clear it anyway so reads behave as usual.
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  size_ = uint64_t(st.st_size);
}

OpenedFile::~OpenedFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string read_file_limited(const std::string& path, size_t max_bytes, const std::string& kind) {
  const OpenedFile f(path);
  const auto over = [&](const std::string& size) {
    return FormatError(path + ": " + size + " is over the limit of " + std::to_string(max_bytes) + " bytes for " + kind);
  };
  if (f.reported_size() > max_bytes) throw over(std::to_string(f.reported_size()) + " bytes");
  std::string bytes;
  bytes.resize(size_t(f.reported_size()) + 1);  // a hint only: /proc files say 0 and grow below
  size_t used = 0;
  for (;;) {
    if (used == bytes.size()) {
      if (used > max_bytes) throw over("more than " + std::to_string(max_bytes) + " bytes");
      bytes.resize(std::min(std::max<size_t>(2 * bytes.size(), 4096), max_bytes + 1));
    }
    const ssize_t n = ::read(f.fd(), &bytes[used], bytes.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    used += size_t(n);
    if (used > max_bytes) throw over("more than " + std::to_string(max_bytes) + " bytes");
  }
  bytes.resize(used);
  return bytes;
}

std::string read_file(const std::string& path) { return read_file_limited(path, kMaxReadBytes); }

std::string file_stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

}  // namespace hs
