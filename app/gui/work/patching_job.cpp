#include "app/gui/work/patching_job.h"

#include <exception>
#include <new>

#include "app/gui/state/app_state.h"

namespace hs::gui {

PatchingJob::PatchingJob(CheckpointCache* checkpoints, int threads)
    : checkpoints_(checkpoints), threads_(threads), jobs_([this](Job job, const Shell::Control& c) { run(std::move(job), c); }) {}

void PatchingJob::start(std::shared_ptr<const RunAnalysis> a, std::shared_ptr<const ContrastRun> b, const PairQuestion& question) {
  std::lock_guard<std::mutex> lock(mutex_);
  status_.running = true;
  status_.request = a->request;
  status_.contrast = b->sentence;
  status_.question = question;
  status_.result.reset();
  status_.error.clear();
  jobs_.submit({std::move(a), std::move(b), question}, true);  // the running job stops after the head it is on
}

PatchingStatus PatchingJob::status() const {
  std::lock_guard<std::mutex> lock(mutex_);
  PatchingStatus s = status_;
  const JobProgress p = jobs_.progress();
  const bool current = p.generation == jobs_.submitted();  // not a cancelled job's count
  s.done = current ? p.done : 0, s.total = current ? p.total : 0;
  return s;
}

void PatchingJob::run(Job job, const Shell::Control& control) {
  PatchingOptions o;
  o.threads = threads_;
  o.progress = [&control](int done, int total) { return control.progress(done, total); };
  std::shared_ptr<const PairAnswer> result;
  std::string error;
  try {
    result = std::make_shared<const PairAnswer>(
        answer_pair(*job.a, *job.b->analysis, job.b->result, job.question, o, checkpoints_));
  } catch (const std::bad_alloc&) {
    error = "out of memory (try shorter sentences)";
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

std::string patching_unavailable(const RunAnalysis& a, const ContrastRun* contrast, const PairQuestion& question) {
  const ModelRequest& r = a.request;
  if (!r.attention_file.empty()) return "Patching needs the model's weights: these maps were read from a file.";
  if (r.model_path.empty() || a.run.next_tokens.empty())
    return "Patching compares what a language model predicts next: open one (a llama2.c checkpoint, a Hugging Face or GGUF "
           "decoder). The synthetic layer, --weights files and encoders predict no next token.";
  if (!contrast || !contrast->analysis) return "Patching needs sentence B's result.";
  if (question.target.empty() || question.versus.empty())
    return "Type two continuations to compare after each sentence (\" are\" and \" is\").";
  return "";
}

bool patching_matches(const PatchingStatus& status, const ModelRequest& request, const std::string& contrast,
                      const PairQuestion& question) {
  return status.contrast == contrast && same_model_request(status.request, request) && status.question.target == question.target &&
         status.question.versus == question.versus;
}

}  // namespace hs::gui
