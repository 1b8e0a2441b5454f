#pragma once
// A minimal parallel-for over independent work items (heads, sweep points): items are
// handed out from an atomic counter to at most `threads` std::threads. The first exception
// thrown by any item is rethrown on the calling thread after all workers finish.
#include <functional>

namespace hs {

// Threads to use when the caller asked for `requested` (<= 0 means all cores).
int resolve_threads(int requested);

void parallel_for(int count, int threads, const std::function<void(int)>& body);

}  // namespace hs
