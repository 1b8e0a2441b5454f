// libFuzzer harness: arbitrary bytes as a .npy file. Must end in a parsed array or hs::Error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/formats/npy.h"
#include "core/util/errors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const hs::NpyArray a = hs::parse_npy(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    int64_t n = 1;
    for (int64_t d : a.shape) n *= d;
    if (static_cast<size_t>(n) != a.data.size()) __builtin_trap();  // shape and data must agree
  } catch (const hs::Error&) {
  }
  return 0;
}
