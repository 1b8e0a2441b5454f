#pragma once
// The shell every background job of the app runs in (the analysis worker, zoomed regions, head
// ablation): one thread, requests that wait in a short list, progress and cancel.
//   newest wins  a request waits until the thread is free; the newest waiting one runs first, and
//                past `keep` waiting requests the oldest is dropped (keep 1: only the newest runs).
//                submit(..., cancel_older) also cancels every older job.
//   progress     the running job reports done / total through its Control; progress() reads it.
//   cancel       cancel() cancels every job submitted so far: the running one sees it at its next
//                check, a waiting one as it starts (Control::cancelled() is true and
//                Control::progress() answers false); each job decides what to keep of its work.
// Each request gets a generation (1, 2, ...); a job compares its own with submitted() to tell
// whether a newer request came. The owner declares its shell last, so that the thread stops
// before the members its job uses are destroyed.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace hs::gui {

struct JobProgress {
  int done = 0, total = 0;  // total 0: not known yet
  uint64_t generation = 0;  // the job's (0: none has reported)
};

template <class Request>
class JobShell {
 public:
  // What the running job sees of its shell.
  class Control {
   public:
    uint64_t generation() const { return generation_; }
    bool cancelled() const { return generation_ <= shell_.cancelled_upto_.load(); }
    // Records progress; false when the job should stop (cancelled).
    bool progress(int done, int total) const {
      {
        std::lock_guard<std::mutex> lock(shell_.mutex_);
        shell_.progress_ = {done, total, generation_};
      }
      return !cancelled();
    }

   private:
    friend class JobShell;
    Control(JobShell& shell, uint64_t generation) : shell_(shell), generation_(generation) {}
    JobShell& shell_;
    uint64_t generation_;
  };
  using Run = std::function<void(Request, const Control&)>;

  explicit JobShell(Run run, size_t keep = 1) : run_(std::move(run)), keep_(keep < 1 ? 1 : keep), thread_([this] { loop(); }) {}
  ~JobShell() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      waiting_.clear();
      cancelled_upto_ = UINT64_MAX;
    }
    wake_.notify_all();
    thread_.join();
  }
  JobShell(const JobShell&) = delete;
  JobShell& operator=(const JobShell&) = delete;

  // Queues `request`; returns its generation. `cancel_older`: every job submitted before is cancelled.
  uint64_t submit(Request request, bool cancel_older = false) {
    uint64_t generation = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cancel_older) cancelled_upto_ = submitted_;
      waiting_.push_back({std::move(request), ++submitted_});
      while (waiting_.size() > keep_) waiting_.pop_front();
      generation = submitted_;
    }
    wake_.notify_all();
    return generation;
  }
  // Cancels every job submitted so far (running or waiting).
  void cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_upto_ = submitted_;
  }
  // The generation of the newest submission.
  uint64_t submitted() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return submitted_;
  }
  // A job runs or waits.
  bool busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || !waiting_.empty();
  }
  // Blocks until no job runs or waits.
  void wait_idle() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return !running_ && waiting_.empty(); });
  }
  // The running job's progress (the last one's once it has finished).
  JobProgress progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_;
  }
  // The progress of the newest submission's job; zeros while an older (cancelled) job still counts.
  JobProgress newest_progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return progress_.generation == submitted_ ? progress_ : JobProgress{0, 0, progress_.generation};
  }

 private:
  struct Waiting {
    Request request;
    uint64_t generation;
  };

  void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      wake_.wait(lock, [this] { return stop_ || !waiting_.empty(); });
      if (stop_) return;
      Waiting w = std::move(waiting_.back());  // the newest first: what is asked for now
      waiting_.pop_back();
      running_ = true;
      progress_ = {};
      lock.unlock();
      run_(std::move(w.request), Control(*this, w.generation));
      lock.lock();
      running_ = false;
      if (waiting_.empty()) idle_.notify_all();
    }
  }

  Run run_;
  const size_t keep_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Waiting> waiting_;  // oldest first
  uint64_t submitted_ = 0;
  bool running_ = false, stop_ = false;
  std::atomic<uint64_t> cancelled_upto_{0};  // jobs up to this generation are cancelled
  JobProgress progress_;
  std::thread thread_;  // last: started once everything above is ready
};

}  // namespace hs::gui
