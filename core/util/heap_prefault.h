#pragma once
// Memory made ready before it is needed (issue 49). The first keystroke after opening a file made
// a whole new set of T x T maps (24 x 14 maps, ~54 MB at T = 200) while the open run's maps were
// still held: ~14,000 first-touch page faults, a third of that keystroke. Later keystrokes reuse
// the memory the run before freed. prefault_heap gives the first one the same: it takes `bytes`
// from the calling thread's malloc arena in blocks of `block_bytes`, writes every page (asking for
// transparent huge pages where the kernel allows it), and frees the blocks, which stay in the arena
// for that thread's next allocations when the process keeps freed memory (app/common/memory_tuning.h:
// glibc's trim threshold 256 MiB, blocks under the 32 MiB mmap threshold). Nothing is kept here.
#include <cstdint>

namespace hs {

// Returns the bytes written (0 when `bytes` or `block_bytes` is not positive, or an allocation fails).
int64_t prefault_heap(int64_t bytes, int64_t block_bytes);

}  // namespace hs
