#pragma once
// Files are written atomically: the bytes go to a temporary file beside the target, which is
// flushed and renamed over it only when complete. A failure never leaves half a file.
#include <functional>
#include <ostream>
#include <string>

#include "core/util/file_read.h"  // read_file, read_file_limited (were declared here)

namespace hs {

// Calls `write` with a stream to a temporary file, then renames it to `path`.
// Throws IoError naming the path when the folder is not writable or the write fails.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// Convenience for a byte string.
void write_file_atomic(const std::string& path, const std::string& bytes);

}  // namespace hs
