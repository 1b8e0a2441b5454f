#pragma once
// The head-count sweep of a request, as the app's Head width view, its export and
// `headscope-cli export --view sweep` all show it: the request's d_model, sentence, mask,
// window and temperature, every head count dividing d_model, kSweepSeeds seeds. It runs for the
// synthetic model on a sentence only (checkpoints and --weights fix their head count); otherwise
// it says why not.
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_sweep.h"
#include "core/model/model_request.h"

namespace hs {

struct Sweep {
  bool available = false;
  std::string note;  // why it is missing, or what it averages over
  int d_model = 0;
  bool masked = false;  // causal or windowed: masked score cells are 0 in the SVD, so rank can exceed d_head
  std::vector<SweepPoint> points;  // one per head count dividing d_model
};

// Seeds each point averages over.
constexpr int kSweepSeeds = 5;

// Longest sentence the sweep runs on: it takes an SVD of every head's [T, T] scores at every
// head count, so its cost grows as T^3.
constexpr int kSweepMaxTokens = 256;

// The sweep for `request` on its `tokens` (the run's). A sweep that cannot run comes back with
// available = false and the note saying why; hs::Error only for what the sweep itself refuses.
std::shared_ptr<const Sweep> analyse_sweep(const ModelRequest& request, const std::vector<std::string>& tokens,
                                           int threads = 0);

// Two requests that give the same sweep: equal but for heads, groups, head width, seed and the
// reshape (the sweep sets them) and the fields only checkpoints read.
bool same_sweep_inputs(const ModelRequest& a, const ModelRequest& b);

}  // namespace hs
