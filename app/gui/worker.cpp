#include "app/gui/worker.h"

#include <exception>
#include <new>

#include "core/util/errors.h"

namespace hs::gui {

DerivedWorker::DerivedWorker() : thread_([this] { loop(); }) {}

DerivedWorker::~DerivedWorker() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

uint64_t DerivedWorker::submit(const ModelRequest& request) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = request;
    generation = ++submitted_;
  }
  wake_.notify_all();
  return generation;
}

std::optional<WorkerResult> DerivedWorker::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<WorkerResult> r = std::move(result_);
  result_.reset();
  return r;
}

bool DerivedWorker::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return computing_ || pending_.has_value();
}

void DerivedWorker::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !computing_ && !pending_.has_value(); });
}

void DerivedWorker::loop() {
  for (;;) {
    ModelRequest request;
    uint64_t generation = 0;
    std::shared_ptr<const Sweep> sweep;
    ModelRequest sweep_request;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      pending_.reset();
      generation = submitted_;
      computing_ = true;
      sweep = sweep_;
      sweep_request = sweep_request_;
    }
    WorkerResult r;
    r.generation = generation;
    try {
      std::shared_ptr<Derived> d = compute_derived(request);
      d->generation = generation;
      if (!sweep || !same_sweep_inputs(sweep_request, request)) {
        sweep = compute_sweep(request, d->run.tokens);
        sweep_request = request;
      }
      d->sweep = sweep;
      r.derived = std::move(d);
    } catch (const hs::Error& e) {
      r.error = e.what();
    } catch (const std::bad_alloc&) {
      r.error = "out of memory (try a shorter sentence, a smaller d_model or fewer heads)";
    } catch (const std::exception& e) {
      r.error = e.what();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      computing_ = false;
      if (r.derived) {
        sweep_ = sweep;
        sweep_request_ = sweep_request;
      }
      // A newer submission makes this result stale: drop it.
      if (generation == submitted_ && generation > finished_) {
        finished_ = generation;
        result_ = std::move(r);
      }
    }
    idle_.notify_all();
  }
}

}  // namespace hs::gui
