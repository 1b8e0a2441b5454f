#pragma once
// The app's side of core's analysis pipeline (core/analysis/run_analysis.h): a request, a lesson
// step's compare entries, each through the same analyse() the CLI and export call.
#include <functional>
#include <memory>
#include <vector>

#include "app/gui/state/derived.h"
#include "core/analysis/analysis_cache.h"
#include "core/model/checkpoint_cache.h"
#include "core/model/prefix_cache.h"

namespace hs::gui {

// Live typing: the previous run's keys and values (the engine's) and its analysis (the row sums),
// kept by the worker between edits.
struct LiveTypingCaches {
  PrefixCache engine;
  AnalysisCache analyses;
};

// The analysis of `request` with the app's rule for long inputs (automatic) and, with `spectrum`,
// singular values and reachable keys (the Head width and Single head views'); no sweep yet. Throws hs::Error for bad requests. With live-typing caches, a causal
// decoder computes only the rows after the prefix the input shares with the previous run.
std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads = 0,
                                         CheckpointCache* checkpoints = nullptr, LiveTypingCaches* live = nullptr,
                                         bool spectrum = true);

// After a whole run that live typing keeps (opening a file, another model or settings): memory for
// the next keystroke's maps made ready on the calling thread, the worker's (prefault_next_maps in
// core/model/prefix_cache.h), once the result is out; nothing after a keystroke's own run (the run
// before it freed its maps). Returns the bytes made ready.
int64_t prepare_next_keystroke(const LiveTypingCaches& live, const Derived& derived);

// Sentence B of a minimal pair: the main request with `sentence` in its place, through analyse(),
// compared with `a` (the main run). A failure (B too long, a different shape) is carried as text.
std::shared_ptr<const ContrastRun> compute_contrast(const ModelRequest& request, const std::string& sentence,
                                                    const RunAnalysis& a, int threads = 0,
                                                    CheckpointCache* checkpoints = nullptr);

// Two models: the request's input through model `ask.model_b` too, compared head by head by
// core's run_model_pair (the code path of `headscope-cli compare --model-b`, so the numbers are
// the same); A's checkpoint in `checkpoints`, B's in `checkpoints_b`. `progress` as
// ModelPairOptions::progress. A failure (loading B, a refused pair, cancelled) is carried as text.
std::shared_ptr<const ContrastRun> compute_model_contrast(const ModelRequest& request, const ContrastAsk& ask, int threads,
                                                          CheckpointCache* checkpoints, CheckpointCache* checkpoints_b,
                                                          std::function<bool(int, int)> progress = {});

// Each entry through analyse() (with `reach`: reachable keys, for the Head width view); a failing
// entry carries its error instead.
std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads = 0,
                                           CheckpointCache* checkpoints = nullptr, bool reach = true);

}  // namespace hs::gui
