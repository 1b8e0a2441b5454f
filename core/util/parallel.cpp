#include "core/util/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hs {

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : static_cast<int>(hw);
}

int threads_for_work(int requested, int64_t multiply_adds) {
  return int(std::min<int64_t>(resolve_threads(requested), std::max<int64_t>(1, multiply_adds >> 21)));
}

void parallel_for(int count, int threads, const std::function<void(int)>& body) {
  const int workers = std::min(resolve_threads(threads), count);
  if (workers <= 1) {
    for (int i = 0; i < count; ++i) body(i);
    return;
  }
  std::atomic<int> next{0};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  auto work = [&]() {
    for (int i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(workers - 1));
  for (int t = 1; t < workers; ++t) pool.emplace_back(work);
  work();
  for (auto& th : pool) th.join();
  if (first_error) std::rethrow_exception(first_error);
}

int parallel_tasks(int count, int threads, const std::function<std::function<void()>(int)>& work,
                   const std::function<bool(int, int)>& progress) {
  std::atomic<bool> stop{false};
  std::mutex mutex;  // guards `done`, the stores and the progress callback
  int done = 0;
  parallel_for(count, threads, [&](int task) {
    if (stop.load()) return;
    try {
      const std::function<void()> store = work(task);
      std::lock_guard<std::mutex> lock(mutex);
      if (stop.load()) return;  // cancelled meanwhile: what finishes after the stop is dropped
      store();
      ++done;
      if (progress && !progress(done, count)) stop = true;
    } catch (...) {
      stop = true;  // the rest are skipped; parallel_for rethrows the first error
      throw;
    }
  });
  return done;
}

}  // namespace hs
