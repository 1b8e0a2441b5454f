#include "core/util/heap_prefault.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace hs {
namespace {

constexpr uintptr_t kHugePage = uintptr_t(2) << 20;

// Asks for huge pages on the whole 2 MiB pages inside [begin, end) (THP "madvise" mode; a no-op
// where the kernel has none or refuses).
void advise_huge_pages(uintptr_t begin, uintptr_t end) {
#ifdef MADV_HUGEPAGE
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1), last = end & ~(kHugePage - 1);
  if (last > first) (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)begin, (void)end;
#endif
}

}  // namespace

int64_t prefault_heap(int64_t bytes, int64_t block_bytes) {
  if (bytes <= 0 || block_bytes <= 0) return 0;
  const int64_t page = std::max<int64_t>(4096, sysconf(_SC_PAGESIZE));
  std::vector<void*> blocks;
  blocks.reserve(size_t((bytes + block_bytes - 1) / block_bytes));
  int64_t written = 0;
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int64_t left = bytes; left > 0; left -= block_bytes) {
    void* p = std::malloc(size_t(block_bytes));
    if (!p) break;
    blocks.push_back(p);
    lo = std::min(lo, reinterpret_cast<uintptr_t>(p));
    hi = std::max(hi, reinterpret_cast<uintptr_t>(p) + uintptr_t(block_bytes));
  }
  if (!blocks.empty()) advise_huge_pages(lo, hi);
  for (void* p : blocks) {
    // volatile: the writes are the point (a compiler may drop stores to memory freed unread).
    volatile char* c = static_cast<volatile char*>(p);
    for (int64_t i = 0; i < block_bytes; i += page) c[i] = 0;
    c[block_bytes - 1] = 0;
    written += block_bytes;
  }
  for (void* p : blocks) std::free(p);
  return written;
}

}  // namespace hs
