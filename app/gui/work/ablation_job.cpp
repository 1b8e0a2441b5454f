#include "app/gui/work/ablation_job.h"

#include <chrono>
#include <exception>
#include <new>

#include "core/util/errors.h"

namespace hs::gui {

AblationJob::AblationJob(CheckpointCache* checkpoints, int threads)
    : checkpoints_(checkpoints), threads_(threads), jobs_([this](Job job, const Shell::Control& c) { run(std::move(job), c); }) {}

void AblationJob::start(const ModelRequest& request, AblationMode mode) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_.running = true;
  status_.request = request;
  status_.mode = mode;
  status_.result.reset();
  status_.error.clear();
  status_.seconds_left = -1;
  jobs_.submit({request, mode}, true);  // the running job stops after the head it is on
}

AblationStatus AblationJob::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  AblationStatus s = status_;
  const JobProgress p = jobs_.newest_progress();  // not a cancelled job's count
  s.done = p.done, s.total = p.total;
  return s;
}

void AblationJob::run(Job job, const Shell::Control& control) {
  AblationOptions o;
  o.mode = job.mode;
  o.threads = threads_;
  const auto started = std::chrono::steady_clock::now();
  o.progress = [&control, started, this](int done, int total) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (control.generation() == jobs_.submitted()) status_.seconds_left = done > 0 ? s / done * (total - done) : -1;
    }
    return control.progress(done, total);
  };
  o.cancelled = [&control] { return control.cancelled(); };  // polled between layers of a pass of many heads
  std::shared_ptr<const HeadAblation> result;
  std::string error;
  try {
    job.request.fit_context = true;  // as the app's analysis runs it (work/compute.cpp)
    result = std::make_shared<const HeadAblation>(ablate_heads(job.request, o, checkpoints_));
  } catch (const std::bad_alloc&) {
    error = "out of memory (try a shorter sentence)";
  } catch (const std::exception& e) {
    error = e.what();
  }
  std::lock_guard<std::mutex> lock(mutex_);
  if (control.generation() != jobs_.submitted()) return;  // a newer start replaced it
  status_.running = false;
  status_.result = std::move(result);
  status_.error = std::move(error);
  ++status_.serial;
}

std::string ablation_unavailable(const RunAnalysis& a) {
  const ModelRequest& r = a.request;
  if (!r.attention_file.empty())
    return "Ablation needs the model's weights: these maps were read from a file, so no head can be knocked out.";
  if (r.model_path.empty())
    return "Ablation needs a trained model that predicts the next token: a llama2.c checkpoint, a Hugging Face GPT-2 or "
           "Llama-family folder, or a GGUF file (File > Open model, or --model). The synthetic layer and --weights files are "
           "one attention layer with random or given weights and no next-token prediction, so there is no loss to measure.";
  if (a.run.next_tokens.empty())
    return "Ablation needs a model that predicts the next token; " + (a.run.info.name.empty() ? std::string("this model") : a.run.info.name) +
           " is an encoder.";
  if (a.run.n_tokens() < 2) return "Ablation needs at least 2 tokens (a next token to predict).";
  return "";
}

}  // namespace hs::gui
