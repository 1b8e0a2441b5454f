#include "core/analysis/model_pair_run.h"

#include <utility>

#include "core/analysis/model_pair_memory.h"
#include "core/util/runtime_config.h"

namespace hs {

ModelRequest model_b_request(const ModelRequest& a, const std::string& model_b, const std::string& tokenizer_b) {
  ModelRequest b = a;
  b.model_path = model_b;
  const bool b_is_bin = model_b.size() > 4 && model_b.compare(model_b.size() - 4, 4, ".bin") == 0;
  b.tokenizer = !tokenizer_b.empty() ? tokenizer_b : b_is_bin ? a.tokenizer : std::string();
  return b;
}

namespace {

// An error while loading or running one model, said with which one: "model B (x.gguf): ...".
[[noreturn]] void model_pair_rethrow(const char* which, const std::string& path) {
  const std::string at = std::string("model ") + which + " (" + path + "): ";
  try {
    throw;
  } catch (const FormatError& e) {
    throw FormatError(at + e.what());
  } catch (const IoError& e) {
    throw IoError(at + e.what());
  } catch (const InputError& e) {
    throw InputError(at + e.what());
  }
}

struct ModelPairSide {
  std::shared_ptr<const RunAnalysis> analysis;
  Map logits;  // [T, vocab] next-token logits (empty without a next-token head)
};

// One model's run on the input: whole maps where the rule keeps them, no spectra, roles, reach or
// rollout (the comparison reads the maps), the logits kept.
ModelPairSide model_pair_side(const ModelRequest& request, const ModelPairOptions& o, CheckpointCache* cache, const char* which) {
  LogitsKeeper keeper;
  AnalysisOptions options;
  options.spectrum = options.roles = options.reach = options.rollout = false;
  options.maps = MapMode::automatic;
  options.threads = o.threads;
  options.checkpoints = cache;
  options.observer = &keeper;
  ModelPairSide side;
  try {
    side.analysis = analyse(request, options);
  } catch (const Error&) {
    model_pair_rethrow(which, request.model_path);
  }
  side.logits = std::move(keeper.logits);
  return side;
}

void model_pair_step(const ModelPairOptions& o, int step) {
  if (o.progress && !o.progress(step, 2)) throw ModelPairCancelled("the comparison of two models was cancelled");
}

// The budget of `o`, else HEADSCOPE_MEMORY_BUDGET's (RuntimeConfig::memory_budget), else none (-1).
std::pair<int64_t, std::string> model_pair_budget(const ModelPairOptions& o) {
  if (o.memory_budget >= 0) return {o.memory_budget, o.memory_budget_source};
  const RuntimeConfig config = runtime_config();
  if (config.memory_budget.empty()) return {-1, ""};
  const int64_t bytes = parse_byte_size(config.memory_budget);
  if (bytes < 0) {
    throw InputError(config.memory_budget_source + " is \"" + config.memory_budget +
                     "\"; expected a number of bytes, optionally with K, M or G (e.g. 8G)");
  }
  return {bytes, config.memory_budget_source};
}

}  // namespace

ModelPairRun run_model_pair(const ModelRequest& request_a, const ModelRequest& request_b, const ModelPairOptions& o) {
  const auto [budget, source] = model_pair_budget(o);
  const bool both_open = o.checkpoints_a != o.checkpoints_b;
  check_model_pair_memory(request_a, request_b, both_open ? PairResidence::both_open : PairResidence::one_at_a_time, budget,
                          source, available_memory(), o.threads);
  model_pair_step(o, 0);
  const ModelPairSide a = model_pair_side(request_a, o, o.checkpoints_a, "A");
  model_pair_step(o, 1);
  const ModelPairSide b = model_pair_side(request_b, o, o.checkpoints_b, "B");
  ModelPairRun out;
  out.comparison = check_model_pair(a.analysis->run, b.analysis->run, request_a.model_path, request_b.model_path);
  out.comparison.next_token = next_token_agreement(a.logits, b.logits);
  out.contrast = contrast_models(a.analysis->run, b.analysis->run, out.comparison);
  out.a = a.analysis;
  out.b = b.analysis;
  return out;
}

}  // namespace hs
