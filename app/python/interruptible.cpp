#include "app/python/interruptible.h"

#include <pybind11/pybind11.h>

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace py = pybind11;

namespace hs::python {
namespace {

std::atomic<int> g_abandoned_work{0};

// What the worker thread and the waiting caller share; kept alive by both (the worker outlives an
// interrupted caller).
struct InterruptibleJob {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  bool abandoned = false;
  std::exception_ptr error;
  std::atomic<bool> stop{false};
};

void run_job(const std::shared_ptr<InterruptibleJob>& job, const std::function<void(const std::atomic<bool>&)>& work) {
  std::exception_ptr error;
  try {
    work(job->stop);
  } catch (...) {
    error = std::current_exception();
  }
  std::lock_guard<std::mutex> lock(job->mutex);
  job->error = error;
  job->done = true;
  if (job->abandoned) g_abandoned_work.fetch_sub(1);
  job->finished.notify_all();
}

}  // namespace

void run_interruptible(std::function<void(const std::atomic<bool>& stop)> work) {
  auto job = std::make_shared<InterruptibleJob>();
  std::thread worker([job, work = std::move(work)] { run_job(job, work); });
  std::unique_ptr<py::error_already_set> interrupted;
  {
    py::gil_scoped_release release;
    std::unique_lock<std::mutex> lock(job->mutex);
    while (!job->finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return job->done; })) {
      lock.unlock();
      {
        py::gil_scoped_acquire acquire;
        if (PyErr_CheckSignals() != 0) interrupted = std::make_unique<py::error_already_set>();
      }
      lock.lock();
      if (interrupted && !job->done) {
        job->stop = true;
        job->abandoned = true;
        g_abandoned_work.fetch_add(1);
        break;
      }
    }
  }
  if (interrupted) {
    if (worker.joinable()) worker.detach();
    throw *interrupted;
  }
  worker.join();
  if (job->error) std::rethrow_exception(job->error);
}

int abandoned_work() { return g_abandoned_work.load(); }

void wait_for_abandoned_work() {
  py::gil_scoped_release release;
  while (g_abandoned_work.load() > 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
}

}  // namespace hs::python
