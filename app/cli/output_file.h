#pragma once
// Where a command's --json / --csv output goes: "-" is standard output (flushed, and a failed
// write is an IoError naming `what`), anything else a file written atomically (core/util/atomic_file.h).
#include <functional>
#include <ostream>
#include <string>

namespace hs::cli {

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write, const std::string& what = "the JSON");

}  // namespace hs::cli
