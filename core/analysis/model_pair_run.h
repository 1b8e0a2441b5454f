#pragma once
// Two models on one input, run and compared: the one code path of `headscope-cli compare
// --model-b` and the app's Contrast view with a second model, so both show the same numbers.
// Model A runs first, then model B on the same request with B's checkpoint; both keep their
// next-token logits; check_model_pair refuses pairs that cannot be compared head by head, and
// contrast_models gives each shared head's change (model_contrast.h).
#include <functional>
#include <memory>
#include <string>

#include "core/analysis/model_contrast.h"
#include "core/analysis/run_analysis.h"
#include "core/model/checkpoint_cache.h"
#include "core/model/model_request.h"
#include "core/util/errors.h"

namespace hs {

// Model B's request: A's input and options with B's checkpoint. A llama2.c .bin reads a
// tokenizer file: `tokenizer_b` when given, else A's when B is a .bin too; GGUF files and Hugging
// Face folders bring their own.
ModelRequest model_b_request(const ModelRequest& a, const std::string& model_b, const std::string& tokenizer_b);

struct ModelPairOptions {
  int threads = 0;  // <= 0: all cores
  // The open checkpoints: one cache for both (the CLI: A is released before B is read, one
  // mapped file at a time) or one each (the app: both stay open while the sentence is edited).
  CheckpointCache* checkpoints_a = nullptr;
  CheckpointCache* checkpoints_b = nullptr;
  // The memory both models may take together (bytes; -1: HEADSCOPE_MEMORY_BUDGET, or none),
  // named in the refusal by its source ("--memory-budget"). Checked with the available memory
  // before either model is read (model_pair_memory.h); one cache for both counts them one at a
  // time, two caches both open.
  int64_t memory_budget = -1;
  std::string memory_budget_source;
  // The work in steps (done of total): model A read (one step), each of its layers run, model B
  // read, each of its layers (the layer counts from the headers, as estimated before reading).
  // Called before each model is read, after each layer and at the end (done == total); false
  // stops the work with ModelPairCancelled, between two layers when a forward is running.
  std::function<bool(int done, int total)> progress;
};

// run_model_pair stopped because ModelPairOptions::progress said so (not a user's mistake).
struct ModelPairCancelled : Error {
  using Error::Error;
};

struct ModelPairRun {
  std::shared_ptr<const RunAnalysis> a, b;  // each model's run on the input (whole maps)
  ModelComparison comparison;               // paths, shared heads, next-token agreement, notes
  ContrastResult contrast;                  // each shared head's change, [shared layers][shared heads]
};

// Runs `request_a` and `request_b` (the same input, two checkpoints) and compares them, after
// check_model_pair_memory has found that both fit (else its InputError, nothing read). An error
// while loading or running one model is rethrown as the same type with "model A (path): " or
// "model B (path): " in front; a pair that cannot be compared throws check_model_pair's InputError.
ModelPairRun run_model_pair(const ModelRequest& request_a, const ModelRequest& request_b, const ModelPairOptions& options);

}  // namespace hs
