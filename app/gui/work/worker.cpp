#include "app/gui/work/worker.h"

#include <chrono>
#include <exception>
#include <new>

#include "app/gui/state/app_state.h"
#include "core/util/errors.h"

namespace hs::gui {

DerivedWorker::DerivedWorker(int threads) : threads_(threads), jobs_([this](Job job, const Shell::Control& c) { run(std::move(job), c); }) {}

uint64_t DerivedWorker::submit(const ModelRequest& request, std::vector<CompareRequest> compare, bool spectrum,
                               ContrastAsk contrast) {
  return jobs_.submit({request, std::move(compare), spectrum, std::move(contrast)});
}

std::optional<WorkerResult> DerivedWorker::poll() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::optional<WorkerResult> r = std::move(result_);
  result_.reset();
  return r;
}

bool DerivedWorker::wait_result(double ms) {
  std::unique_lock<std::mutex> lock(mutex_);
  return ready_.wait_for(lock, std::chrono::duration<double, std::milli>(ms), [this] { return result_.has_value(); });
}

void DerivedWorker::on_result(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(mutex_);
  wake_ = std::move(wake);
}

void DerivedWorker::publish(WorkerResult r) {
  std::function<void()> wake;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // A newer submission makes this result stale: drop it.
    if (r.generation != jobs_.submitted() || r.generation < finished_) return;
    finished_ = r.generation;
    result_ = std::move(r);
    ready_.notify_all();
    wake = wake_;
  }
  if (wake) wake();
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
    induction_ = measure_induction(fitted, RoleOptions{}, threads_, &checkpoints_);
    induction_request_ = key;
    have_induction_ = true;
  }
  if (induction_.measured) d.roles = std::make_shared<const HeadRoles>(with_induction(d.analysis->roles, induction_));
}

namespace {

// Runs `work`; false with what went wrong in `error` when it throws. The last good result stays
// on screen; the status line says what went wrong.
template <class Work>
bool attempt(std::string& error, Work&& work) {
  try {
    work();
    return true;
  } catch (const hs::Error& e) {
    error = e.what();
  } catch (const std::bad_alloc&) {
    error = "out of memory (try a shorter sentence, a smaller d_model or fewer heads)";
  } catch (const std::exception& e) {
    error = e.what();
  }
  return false;
}

}  // namespace

// Phase 1: the maps and per-head numbers, published at once. Phase 2 (only when the sentence,
// d_model or mask changed, and with `spectrum`: the Head width view on screen): the head-count
// sweep, published as a second result of the same generation.
void DerivedWorker::run(Job job, const Shell::Control& control) {
  const uint64_t generation = control.generation();
  std::shared_ptr<const Sweep> sweep;
  ModelRequest sweep_request;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sweep = sweep_;
    sweep_request = sweep_request_;
  }
  WorkerResult r;
  r.generation = generation;
  std::shared_ptr<Derived> d;
  const auto start = std::chrono::steady_clock::now();
  const bool ok = attempt(r.error, [&] {
    d = compute_derived(job.request, threads_, &checkpoints_, &live_, job.spectrum);
    d->generation = generation;
    if (want_induction_) {
      try {
        add_induction(*d, job.request);
      } catch (const std::exception&) {
        // The maps stay; the roles view says induction was not measured.
      }
    }
    d->compare = compute_compare(job.compare, threads_, &checkpoints_, job.spectrum);
    if (job.contrast.models()) {
      // Reports each model read and layer run; stops between two layers when a newer request came
      // (the user cancelled or moved on).
      const auto current = [this, &control, generation](int done, int total) {
        if (model_pair_hook_) model_pair_hook_(done, total);
        return control.progress(done, total) && jobs_.submitted() == generation;
      };
      d->contrast = compute_model_contrast(job.request, job.contrast, threads_, &checkpoints_, &checkpoints_b_, current);
    } else if (!job.contrast.empty()) {
      d->contrast = compute_contrast(job.request, job.contrast.sentence, *d->analysis, threads_, &checkpoints_);
    }
    if (!job.contrast.models()) checkpoints_b_.clear();  // model B's file is let go once not compared
    d->worker_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  });
  const bool sweep_fresh = sweep && same_sweep_inputs(sweep_request, job.request);
  if (ok) {
    d->sweep = sweep_fresh ? sweep : nullptr;
    r.derived = d;
  }
  publish(std::move(r));
  if (ok) prepare_next_keystroke(live_, *d);
  if (ok && !sweep_fresh && job.spectrum) publish_sweep(job, d, generation);
}

void DerivedWorker::publish_sweep(const Job& job, const std::shared_ptr<Derived>& d, uint64_t generation) {
  WorkerResult r2;
  r2.generation = generation;
  std::shared_ptr<const Sweep> new_sweep;
  if (attempt(r2.error, [&] { new_sweep = analyse_sweep(job.request, d->run().tokens); })) {
    auto with_sweep = std::make_shared<Derived>(*d);  // pointers only: the analysis is shared
    with_sweep->sweep = new_sweep;
    r2.derived = std::move(with_sweep);
    std::lock_guard<std::mutex> lock(mutex_);
    sweep_ = new_sweep;
    sweep_request_ = job.request;
  } else {
    // A failed sweep keeps the maps on screen; the note says why.
    auto failed = std::make_shared<Sweep>();
    failed->note = "The head-count sweep failed: " + r2.error;
    auto with_note = std::make_shared<Derived>(*d);
    with_note->sweep = failed;
    r2.derived = std::move(with_note);
    r2.error.clear();
  }
  publish(std::move(r2));
}

}  // namespace hs::gui
