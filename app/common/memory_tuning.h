#pragma once
// Process-level allocator tuning shared by headscope-cli and headscope.
namespace hs {

// T x T maps are large (1 MiB each at T = 512) and made afresh on every recompute. By default
// glibc serves such blocks with mmap and returns them on free, so each recompute faults every
// page in again (measured: most of the engine's time at T = 512 on a loaded VM). Raise the mmap
// threshold to its maximum (32 MiB) and keep freed memory for reuse, as PyTorch's caching
// allocator does.
void keep_freed_memory_for_reuse();

}  // namespace hs
