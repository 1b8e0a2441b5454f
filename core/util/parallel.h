#pragma once
// A minimal parallel-for over independent work items (heads, sweep points): items are
// handed out from an atomic counter to at most `threads` std::threads. The first exception
// thrown by any item is rethrown on the calling thread after all workers finish.
#include <cstdint>
#include <functional>

namespace hs {

// Threads to use when the caller asked for `requested` (<= 0 means all cores).
int resolve_threads(int requested);

// Threads worth starting for `multiply_adds` of work, at most resolve_threads(requested): each
// thread is started per call, so one gets at least 2^21 (about 50 us, the order of starting it).
int threads_for_work(int requested, int64_t multiply_adds);

void parallel_for(int count, int threads, const std::function<void(int)>& body);

// Long tasks with progress and cancel (a pass per head): work(task) runs in parallel, outside any
// lock, and returns what stores its result; the stores run one at a time, each followed by
// progress(done, count), which returns false to stop: tasks not started are skipped, and results
// that finish after the stop are dropped. Returns how many results were stored. The first
// exception stops the rest and is rethrown.
int parallel_tasks(int count, int threads, const std::function<std::function<void()>(int)>& work,
                   const std::function<bool(int, int)>& progress);

}  // namespace hs
