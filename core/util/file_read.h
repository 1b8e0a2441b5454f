#pragma once
// Reading files that a user names, without trusting them: a path may be a device (/dev/zero
// never ends), a FIFO (open() blocks until a writer comes), a folder, a socket, a /proc file
// (stat() says 0 bytes, yet it has content) or a symlink loop. Every reader in core goes
// through OpenedFile (checked, never blocks) and reads at most a limit, counted while reading.
#include <cstddef>
#include <cstdint>
#include <string>

namespace hs {

// "" when path is a regular file; otherwise what is wrong, worded to follow the path in a
// message: "does not exist (no such file or folder)", "is a character device, not a file", "is a symlink loop (too many
// levels of symbolic links)", "is not accessible (permission denied)".
std::string not_a_file_reason(const std::string& path);

// True when something is at the path (lstat(): a dangling symlink or a loop exists too).
bool path_exists(const std::string& path);

// True when stat() succeeds and the path is a regular file / a folder (following symlinks).
bool is_regular_file(const std::string& path);
bool is_folder(const std::string& path);

// The file's name without its folder and its last extension: "/m/stories260K.bin" -> "stories260K"
// (a leading dot is part of the name: ".hidden" stays ".hidden").
std::string file_stem(const std::string& path);

// A file descriptor open for reading on a regular file. Opened with O_NONBLOCK, so a FIFO is
// refused instead of waiting forever for a writer. Throws IoError naming the path and what it
// is instead: "cannot read /dev/zero: it is a character device, not a file".
class OpenedFile {
 public:
  explicit OpenedFile(const std::string& path);
  ~OpenedFile();
  OpenedFile(const OpenedFile&) = delete;
  OpenedFile& operator=(const OpenedFile&) = delete;

  int fd() const { return fd_; }
  // What fstat() reports; 0 for /proc files that do have content, so never a bound by itself.
  uint64_t reported_size() const { return size_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
};

// Whole regular file into memory, reading at most max_bytes (stat() sizes are not trusted):
// IoError when it cannot be opened or is not a regular file, FormatError naming the path, the
// limit and the kind of file when there is more.
std::string read_file_limited(const std::string& path, size_t max_bytes, const std::string& kind = "this kind of file");

// read_file_limited with kMaxReadBytes.
std::string read_file(const std::string& path);

// The most any reader here takes into memory at once (1 GiB); larger checkpoints are mapped.
constexpr size_t kMaxReadBytes = size_t(1) << 30;

}  // namespace hs
