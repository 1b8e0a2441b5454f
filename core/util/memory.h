#pragma once
// How much memory there is, and messages that say how much something needs: "out of memory" alone
// does not tell a user whether the sentence, the heads or the checkpoint was too big.
#include <cstdint>
#include <string>

namespace hs {

// Bytes of physical memory (0 when unknown).
int64_t physical_memory_bytes();

// "1.49 GiB", "512 MiB", "980 bytes": three significant digits.
std::string bytes_text(double bytes);

// What loading a checkpoint needs: `values` float32 numbers. Throws InputError naming `what`, the
// count and the bytes when they are more than the machine's physical memory (it would only end
// in std::bad_alloc or the OOM killer halfway through).
void check_weights_fit(const std::string& what, int64_t values);

// The IoError for a std::bad_alloc while loading those values: "stories.bin: loading its
// 370000000 weights needs 1.38 GiB of memory as float32, and the allocation failed".
[[noreturn]] void throw_weights_out_of_memory(const std::string& what, int64_t values);

}  // namespace hs
