#include "app/gui/work/compute.h"

#include <exception>
#include <new>

#include "core/analysis/model_pair_run.h"

namespace hs::gui {
namespace {

AnalysisOptions app_options(int threads, CheckpointCache* checkpoints, bool spectrum, bool reach) {
  AnalysisOptions o;
  o.threads = threads;
  o.checkpoints = checkpoints;
  o.maps = MapMode::automatic;
  o.spectrum = spectrum;
  o.reach = reach;
  o.induction_probe = false;  // measured when the Head roles view asks (worker.h: want_induction), not while typing
  o.all_next_tokens = false;  // predictions after the last token; the others when a view shows them
  return o;
}

// The app keeps a model open whatever is typed: a text past its context is cut to what it reads,
// and the run's notes say so (the CLI refuses it unless --fit-context).
ModelRequest fitted(ModelRequest r) {
  r.fit_context = true;
  return r;
}

}  // namespace

std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads, CheckpointCache* checkpoints,
                                         LiveTypingCaches* live, bool spectrum) {
  auto d = std::make_shared<Derived>();
  d->spectrum = spectrum;
  AnalysisOptions options = app_options(threads, checkpoints, spectrum, spectrum);
  options.prefix_cache = live ? &live->engine : nullptr;
  options.analysis_cache = live ? &live->analyses : nullptr;
  d->analysis = analyse(fitted(request), options);
  return d;
}

std::shared_ptr<const ContrastRun> compute_contrast(const ModelRequest& request, const std::string& sentence,
                                                    const RunAnalysis& a, int threads, CheckpointCache* checkpoints) {
  auto out = std::make_shared<ContrastRun>();
  out->sentence = sentence;
  try {
    ModelRequest b = request;
    b.sentence = sentence;
    auto analysis = analyse(fitted(b), app_options(threads, checkpoints, false, false));
    out->result = contrast_runs(a.run, analysis->run);
    out->analysis = std::move(analysis);
  } catch (const std::bad_alloc&) {
    out->error = "out of memory (try a shorter sentence B)";
  } catch (const std::exception& ex) {
    out->error = ex.what();
  }
  return out;
}

std::shared_ptr<const ContrastRun> compute_model_contrast(const ModelRequest& request, const ContrastAsk& ask, int threads,
                                                          CheckpointCache* checkpoints, CheckpointCache* checkpoints_b,
                                                          std::function<bool(int, int)> progress) {
  auto out = std::make_shared<ContrastRun>();
  out->model_b = ask.model_b, out->tokenizer_b = ask.tokenizer_b;
  try {
    ModelPairOptions options;
    options.threads = threads;
    options.checkpoints_a = checkpoints, options.checkpoints_b = checkpoints_b;
    options.progress = std::move(progress);
    options.memory_budget = ask.memory_budget, options.memory_budget_source = ask.memory_budget_source;
    const ModelRequest a = fitted(request);
    ModelPairRun pair = run_model_pair(a, model_b_request(a, ask.model_b, ask.tokenizer_b), options);
    out->analysis_a = std::move(pair.a);
    out->analysis = std::move(pair.b);
    out->models = std::move(pair.comparison);
    out->result = std::move(pair.contrast);
  } catch (const std::bad_alloc&) {
    out->error = "out of memory comparing with model B (try a shorter sentence or a smaller model B)";
  } catch (const std::exception& ex) {
    out->error = ex.what();
  }
  return out;
}

std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads,
                                           CheckpointCache* checkpoints, bool reach) {
  std::vector<CompareResult> out;
  for (const CompareRequest& e : entries) {
    CompareResult r;
    r.label = e.label;
    try {
      // Maps side by side: no view of singular values; reachable keys for the Head width view.
      r.analysis = analyse(fitted(e.request), app_options(threads, checkpoints, false, reach));
    } catch (const std::bad_alloc&) {
      r.error = "out of memory (try a shorter sentence, a smaller d_model or fewer heads)";
    } catch (const std::exception& ex) {
      r.error = ex.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

int64_t prepare_next_keystroke(const LiveTypingCaches& live, const Derived& derived) {
  if (!derived.analysis || derived.analysis->reused_tokens >= 0) return 0;
  if (live.engine.run.get() != &derived.analysis->run) return 0;  // not the run the cache holds
  return prefault_next_maps(live.engine);
}

}  // namespace hs::gui
