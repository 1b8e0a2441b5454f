#include "app/gui/work/ablation_job.h"

#include <exception>
#include <new>

#include "core/util/errors.h"

namespace hs::gui {

AblationJob::AblationJob(CheckpointCache* checkpoints, int threads) : checkpoints_(checkpoints), threads_(threads) {}

AblationJob::~AblationJob() {
  cancel_ = true;
  join();
}

void AblationJob::join() {
  if (thread_.joinable()) thread_.join();
}

void AblationJob::start(const ModelRequest& request, AblationMode mode) {
  cancel_ = true;
  join();  // at most the head it is on
  cancel_ = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_.running = true;
    status_.done = status_.total = 0;
    status_.request = request;
    status_.mode = mode;
    status_.result.reset();
    status_.error.clear();
  }
  thread_ = std::thread([this, request, mode] { run(request, mode); });
}

void AblationJob::cancel() { cancel_ = true; }

AblationStatus AblationJob::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

bool AblationJob::busy() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return status_.running;
}

void AblationJob::wait_idle() {
  std::unique_lock<std::mutex> lock(mutex_);
  idle_.wait(lock, [this] { return !status_.running; });
}

void AblationJob::run(ModelRequest request, AblationMode mode) {
  AblationOptions o;
  o.mode = mode;
  o.threads = threads_;
  o.progress = [this](int done, int total) {
    std::lock_guard<std::mutex> lock(mutex_);
    status_.done = done, status_.total = total;
    return !cancel_.load();
  };
  std::shared_ptr<const HeadAblation> result;
  std::string error;
  try {
    request.fit_context = true;  // as the app's analysis runs it (work/compute.cpp)
    result = std::make_shared<const HeadAblation>(ablate_heads(request, o, checkpoints_));
  } catch (const std::bad_alloc&) {
    error = "out of memory (try a shorter sentence)";
  } catch (const std::exception& e) {
    error = e.what();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    status_.running = false;
    status_.result = std::move(result);
    status_.error = std::move(error);
    ++status_.serial;
  }
  idle_.notify_all();
}

void handle_ablation_requests(AppState& state, const Derived* shown, AblationJob& job) {
  AblationPanelState& p = state.ablation;
  const bool run = p.run_requested && shown, cancel = p.cancel_requested;
  if (shown) p.run_requested = false;  // asked before the first result (--ablate): wait for it
  p.cancel_requested = false;
  if (cancel) job.cancel();
  if (run && shown && ablation_unavailable(*shown->analysis).empty()) {
    job.start(shown->analysis->request, p.mean ? AblationMode::mean : AblationMode::zero);
    return;
  }
  // Typing a new sentence or opening another model makes a running job's numbers stale: stop it.
  if (job.busy() && !same_model_request(job.status().request, state.request)) job.cancel();
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
