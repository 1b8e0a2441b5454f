#pragma once
// Files are written atomically: the bytes go to a temporary file beside the target, which is
// flushed and renamed over it only when complete. A failure never leaves half a file.
//
// The folder may be hostile or shared (/tmp): the temporary file is made as mkstemp makes it
// (O_EXCL, an unpredictable name, so nothing planted there is followed) with a short name, ".hs-XXXXXX", so
// any legal destination name works. A destination that is a symlink is written through: its
// final target is replaced and the link stays. A read-only destination is refused, never
// replaced. The destination keeps its mode (a new file gets 0666 minus the umask). Devices and
// FIFOs (/dev/null, /dev/stdout) are written directly.
#include <functional>
#include <ostream>
#include <string>

#include "core/util/file_read.h"  // read_file, read_file_limited: for the callers of this header

namespace hs {

// Calls `write` with a stream to a temporary file, then renames it to `path`.
// Throws IoError naming the path (never the temporary file) and what is wrong with it.
void write_file_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);

// Convenience for a byte string.
void write_file_atomic(const std::string& path, const std::string& bytes);

// For main() of the CLI and the app, once, before any file is written: on SIGINT, SIGTERM,
// SIGHUP and SIGQUIT the temporary files being written are unlinked (async-signal-safe) and the
// signal is raised again, so the process still ends as the signal says. SIGXFSZ (a file-size
// limit, ulimit -f) is ignored, so the write that passes the limit fails with EFBIG and is
// reported and cleaned up like any failed write instead of killing the process.
void install_temp_file_cleanup();

// Temporary files currently being written (for tests).
int live_temp_files();

}  // namespace hs
