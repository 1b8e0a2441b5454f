// libFuzzer harness: arbitrary bytes as a .safetensors file (written to a temporary file, since
// the reader memory-maps). Every tensor the header accepts must be readable as floats or give
// hs::Error; nothing may read outside the file.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "core/formats/safetensors.h"
#include "core/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/headscope-fuzz-" + std::to_string(::getpid()) + ".safetensors";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    if (size) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    return 0;
  }
  try {
    hs::SafetensorsFile file(path);
    for (const std::string& name : file.names()) {
      try {
        const std::vector<float> v = file.floats(name);
        if (static_cast<int64_t>(v.size()) != file.info(name).elements()) __builtin_trap();
      } catch (const hs::Error&) {
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
