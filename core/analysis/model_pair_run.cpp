#include "core/analysis/model_pair_run.h"

#include <algorithm>
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

// The work of a pair in steps: model A read (one step), each of its layers run, then model B
// read and each of its layers. ModelPairOptions::progress hears (done, total) before each read and
// after each layer; a false answer stops the work with ModelPairCancelled.
struct ModelPairSteps {
  const ModelPairOptions& options;
  int done = 0, total = 0;
  void report() const {
    if (options.progress && !options.progress(done, total)) throw ModelPairCancelled("the comparison of two models was cancelled");
  }
};

// Keeps the logits and counts the layers as the forward finishes each (the layer's output is
// announced once per layer, on the thread running the forward): a cancel thrown here leaves the
// forward between two layers. A GGUF file's weights are mapped, so its reading is in these steps.
class ModelPairLayerWatch : public LogitsKeeper {
 public:
  explicit ModelPairLayerWatch(ModelPairSteps& steps) : steps_(steps) {}
  bool wants(TensorKind kind, int layer, int head) const override {
    return kind == TensorKind::output || LogitsKeeper::wants(kind, layer, head);
  }
  void on_tensor(TensorKind kind, int layer, int head, const Map& tensor) override {
    if (kind == TensorKind::output) return layer_done();
    LogitsKeeper::on_tensor(kind, layer, head, tensor);
  }
  void take_tensor(TensorKind kind, int layer, int head, Map&& tensor) override {
    if (kind == TensorKind::output) return layer_done();
    LogitsKeeper::take_tensor(kind, layer, head, std::move(tensor));
  }

 private:
  void layer_done() {
    steps_.done = std::min(steps_.done + 1, steps_.total);
    steps_.report();
  }
  ModelPairSteps& steps_;
};

// One model's run on the input: whole maps where the rule keeps them, no spectra, roles, reach or
// rollout (the comparison reads the maps), the logits kept. `layers`: its layer count as estimated
// before reading it (steps.done ends at `first` + 1 + layers whatever the forward announced).
ModelPairSide model_pair_side(const ModelRequest& request, CheckpointCache* cache, const char* which, ModelPairSteps& steps,
                              int layers) {
  const int first = steps.done;
  steps.report();  // before the model is read
  steps.done = first + 1;
  ModelPairLayerWatch watch(steps);
  AnalysisOptions options;
  options.spectrum = options.roles = options.reach = options.rollout = false;
  options.maps = MapMode::automatic;
  options.threads = steps.options.threads;
  options.checkpoints = cache;
  options.observer = &watch;
  ModelPairSide side;
  try {
    side.analysis = analyse(request, options);
  } catch (const Error&) {
    model_pair_rethrow(which, request.model_path);
  }
  steps.done = first + 1 + layers;
  side.logits = std::move(watch.logits);
  return side;
}

// The budget of `o`, else HEADSCOPE_MEMORY_BUDGET's (RuntimeConfig::memory_budget), else none (-1).
std::pair<int64_t, std::string> model_pair_budget(const ModelPairOptions& o) {
  if (o.memory_budget >= 0) return {o.memory_budget, o.memory_budget_source};
  const RuntimeConfig config = runtime_config();
  if (config.memory_budget.empty()) return {-1, ""};
  const int64_t bytes = parse_memory_budget(config.memory_budget);
  if (bytes < 0) {
    throw InputError(config.memory_budget_source + " is \"" + config.memory_budget +
                     "\"; expected MiB (e.g. 8192) or a size with K, M or G (e.g. 8G)");
  }
  return {bytes, config.memory_budget_source};
}

}  // namespace

ModelPairRun run_model_pair(const ModelRequest& request_a, const ModelRequest& request_b, const ModelPairOptions& o) {
  const auto [budget, source] = model_pair_budget(o);
  const bool both_open = o.checkpoints_a != o.checkpoints_b;
  const PairMemoryCheck memory = check_model_pair_memory(
      request_a, request_b, both_open ? PairResidence::both_open : PairResidence::one_at_a_time, budget, source, available_memory(), o.threads);
  ModelPairSteps steps{o};
  const int layers_a = std::max(memory.a.layers, 1), layers_b = std::max(memory.b.layers, 1);
  steps.total = 2 + layers_a + layers_b;
  const ModelPairSide a = model_pair_side(request_a, o.checkpoints_a, "A", steps, layers_a);
  const ModelPairSide b = model_pair_side(request_b, o.checkpoints_b, "B", steps, layers_b);
  steps.report();  // done == total: both models run
  ModelPairRun out;
  out.comparison = check_model_pair(a.analysis->run, b.analysis->run, request_a.model_path, request_b.model_path);
  out.comparison.next_token = next_token_agreement(a.logits, b.logits);
  out.contrast = contrast_models(a.analysis->run, b.analysis->run, out.comparison);
  out.a = a.analysis;
  out.b = b.analysis;
  return out;
}

}  // namespace hs
