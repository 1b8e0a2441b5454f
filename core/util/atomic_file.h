#pragma once
// Files are written atomically: the bytes go to a temporary file beside the target, which is
// flushed and renamed over it only when complete. A failure never leaves half a file.
#include <functional>
#include <ostream>
#include <string>

namespace hs {

// Calls `write` with a stream to a temporary file, then renames it to `path`.
// Throws IoError naming the path when the folder is not writable or the write fails.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// Convenience for a byte string.
void write_file_atomic(const std::string& path, const std::string& bytes);

// Whole file into memory; throws IoError naming the path.
std::string read_file(const std::string& path);

// Whole file into memory, refusing folders and files over `max_bytes` before reading
// (IoError / FormatError naming the path, the size and the limit).
std::string read_file_limited(const std::string& path, size_t max_bytes);

}  // namespace hs
