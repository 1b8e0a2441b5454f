#include "app/gui/work/fit_job.h"

#include <exception>
#include <new>

#include "core/analysis/target_pattern.h"

namespace hs::gui {

FitJob::FitJob() : jobs_([this](Job job, const Shell::Control& c) { run(std::move(job), c); }) {}

void FitJob::start(const std::string& pattern, std::shared_ptr<const RunAnalysis> analysis, uint64_t generation) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_.running = true;
  status_.pattern = pattern;
  status_.generation = generation;
  status_.title.clear();
  status_.result.reset();
  status_.error.clear();
  jobs_.submit({pattern, std::move(analysis)}, true);  // the running fit stops at its next 50 steps
}

FitStatus FitJob::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  FitStatus s = status_;
  const JobProgress p = jobs_.newest_progress();  // not a cancelled job's count
  s.done = p.done, s.total = p.total;
  return s;
}

void FitJob::run(Job job, const Shell::Control& control) {
  std::shared_ptr<const PatternFit> result;
  std::string error, title;
  try {
    PatternFitOptions o;
    o.seed = job.analysis->request.seed;
    title = pattern_title(job.pattern, *job.analysis);
    const Map target = target_pattern(job.pattern, *job.analysis);  // [T, T]
    result = std::make_shared<const PatternFit>(
        fit_pattern(target, o, [&control](int done, int total) { return control.progress(done, total); }));
  } catch (const std::bad_alloc&) {
    error = "out of memory";
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (control.generation() != jobs_.submitted()) return;  // a newer start replaced it
  status_.running = false;
  status_.title = std::move(title);
  status_.result = std::move(result);
  status_.error = std::move(error);
  ++status_.serial;
}

}  // namespace hs::gui
