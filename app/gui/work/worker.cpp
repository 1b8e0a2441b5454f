#include "app/gui/work/worker.h"

#include <chrono>
#include <exception>
#include <new>

#include "app/gui/state/app_state.h"
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

uint64_t DerivedWorker::submit(const ModelRequest& request, std::vector<CompareRequest> compare, bool spectrum,
                               std::string contrast) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = request;
    pending_compare_ = std::move(compare);
    pending_spectrum_ = spectrum;
    pending_contrast_ = std::move(contrast);
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

bool DerivedWorker::wait_result(double ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  return ready_.wait_for(lock, std::chrono::duration<double, std::milli>(ms), [this] { return result_.has_value(); });
}

void DerivedWorker::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !computing_ && !pending_.has_value(); });
}

void DerivedWorker::publish(WorkerResult r, bool last) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (last) computing_ = false;
    // A newer submission makes this result stale: drop it.
    if (r.generation == submitted_ && r.generation >= finished_) {
      finished_ = r.generation;
      result_ = std::move(r);
      ready_.notify_all();
    }
  }
  if (last) idle_.notify_all();
}

namespace {

// What the induction probe depends on: the model, not the text it reads.
ModelRequest probe_key(ModelRequest r) {
  r.sentence.clear(), r.sentence_b.clear(), r.input_ids.clear(), r.token_type_ids.clear();
  r.generate = 0;
  return r;
}

}  // namespace

void DerivedWorker::add_induction(Derived& d, const ModelRequest& request) {
  const ModelRequest key = probe_key(request);
  d.induction_checked = true;
  if (!have_induction_ || !same_model_request(key, induction_request_)) {
    have_induction_ = false;
    ModelRequest fitted = request;
    fitted.fit_context = true;  // as compute_derived runs it
    induction_ = measure_induction(fitted, RoleOptions{}, 0, &checkpoints_);
    induction_request_ = key;
    have_induction_ = true;
  }
  if (induction_.measured) d.roles = std::make_shared<const HeadRoles>(with_induction(d.analysis->roles, induction_));
}

void DerivedWorker::loop() {
  for (;;) {
    ModelRequest request;
    std::vector<CompareRequest> compare;
    uint64_t generation = 0;
    bool spectrum = true;
    std::string contrast;
    std::shared_ptr<const Sweep> sweep;
    ModelRequest sweep_request;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stop_ || pending_.has_value(); });
      if (stop_) return;
      request = std::move(*pending_);
      pending_.reset();
      compare = std::move(pending_compare_);
      pending_compare_.clear();
      spectrum = pending_spectrum_;
      contrast = std::move(pending_contrast_);
      pending_contrast_.clear();
      generation = submitted_;
      computing_ = true;
      sweep = sweep_;
      sweep_request = sweep_request_;
    }
    // Phase 1: the maps and per-head numbers, published at once. Phase 2 (only when the
    // sentence, d_model or mask changed, and with `spectrum`: the Head width view on screen): the
    // head-count sweep, published as a second result of the same generation.
    WorkerResult r;
    r.generation = generation;
    std::shared_ptr<Derived> d;
    const auto attempt = [&r](auto&& work) {
      // The last good result stays on screen; the status line says what went wrong.
      try {
        work();
        return true;
      } catch (const hs::Error& e) {
        r.error = e.what();
      } catch (const std::bad_alloc&) {
        r.error = "out of memory (try a shorter sentence, a smaller d_model or fewer heads)";
      } catch (const std::exception& e) {
        r.error = e.what();
      }
      return false;
    };
    const auto start = std::chrono::steady_clock::now();
    const bool ok = attempt([&] {
      d = compute_derived(request, 0, &checkpoints_, &live_, spectrum);
      d->generation = generation;
      if (want_induction_) {
        try {
          add_induction(*d, request);
        } catch (const std::exception&) {
          // The maps stay; the roles view says induction was not measured.
        }
      }
      d->compare = compute_compare(compare, 0, &checkpoints_);
      if (!contrast.empty()) d->contrast = compute_contrast(request, contrast, *d->analysis, 0, &checkpoints_);
      d->worker_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    });
    const bool sweep_fresh = sweep && same_sweep_inputs(sweep_request, request);
    if (ok) {
      d->sweep = sweep_fresh ? sweep : nullptr;
      r.derived = d;
    }
    publish(std::move(r), !ok || sweep_fresh || !spectrum);
    if (!ok || sweep_fresh || !spectrum) continue;
    WorkerResult r2;
    r2.generation = generation;
    std::shared_ptr<const Sweep> new_sweep;
    if (attempt([&] { new_sweep = analyse_sweep(request, d->run().tokens); })) {
      auto with_sweep = std::make_shared<Derived>(*d);  // pointers only: the analysis is shared
      with_sweep->sweep = new_sweep;
      r2.derived = std::move(with_sweep);
      std::lock_guard<std::mutex> lock(mutex_);
      sweep_ = new_sweep;
      sweep_request_ = request;
    } else {
      // A failed sweep keeps the maps on screen; the note says why.
      auto failed = std::make_shared<Sweep>();
      failed->note = "The head-count sweep failed: " + r2.error;
      auto with_note = std::make_shared<Derived>(*d);
      with_note->sweep = failed;
      r2.derived = std::move(with_note);
      r2.error.clear();
    }
    publish(std::move(r2), true);
  }
}

}  // namespace hs::gui
