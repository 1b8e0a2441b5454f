#include "app/cli/output_file.h"

#include <iostream>

#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::cli {

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write, const std::string& what) {
  if (path != "-") {
    write_file_atomic(path, write);
    return;
  }
  write(std::cout);
  std::cout.flush();
  if (!std::cout) throw IoError("cannot write " + what + " to standard output");
}

}  // namespace hs::cli
