// libFuzzer harness: arbitrary bytes as a .npz archive (written to a temporary file, since the
// reader memory-maps). The directory is read on open; every array it lists must parse (stored or
// inflated, CRC-checked) or give hs::Error, with its shape and data in agreement, and its header
// read alone (declared sizes checked before inflating) saying the same shape.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/formats/npz.h"
#include "core/util/errors.h"
#include "fuzz_temp_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = hs::fuzz::write_temp("fuzz.npz", data, size);
  if (path.empty()) return 0;
  try {
    const hs::NpzFile f(path);
    for (const std::string& name : f.names()) {
      try {
        const hs::NpyLayout header = f.layout(name);  // the .npy header alone, sizes checked
        const hs::NpyArray a = f.array(name);
        int64_t n = 1;
        for (const int64_t d : a.shape) n *= d;
        if (static_cast<size_t>(n) != a.data.size()) __builtin_trap();  // shape and data must agree
        if (header.shape != a.shape) __builtin_trap();                   // and the header read alone
      } catch (const hs::Error&) {
      }
    }
  } catch (const hs::Error&) {
  }
  return 0;
}
