#pragma once
// Derived: everything computed from one ModelRequest, made off the UI thread by DerivedWorker
// and shown until a newer good result replaces it. Immutable once published.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_sweep.h"
#include "core/model/model_request.h"

namespace hs::gui {

struct HeadSpectrum {
  Vec singular_values;       // of the score matrix S_h, largest first. [T]
  int score_rank = 0;        // numerical rank of S_h (<= d_head)
  float effective_rank = 0;  // exp(entropy of normalised singular values)
  float mean_entropy = 0;    // mean row entropy of A_h (nats)
};

struct Sweep {
  bool available = false;
  std::string note;  // why it is missing, or what it averages over
  int d_model = 0;
  bool masked = false;  // causal or windowed: masked score cells are 0 in the SVD, so rank can exceed d_head
  std::vector<SweepPoint> points;  // one per head count dividing d_model
};

struct Derived;

// One `compare` entry of a lesson step: its own request, computed with the main one.
struct CompareRequest {
  std::string label;
  ModelRequest request;
};

struct CompareResult {
  std::string label;
  std::shared_ptr<const Derived> derived;  // null when the entry's request failed
  std::string error;
};

struct Derived {
  uint64_t generation = 0;
  ModelRequest request;  // what produced this
  AttentionRun run;      // tokens, info, attention [layer][head] [T, T], scores
  std::vector<Map> difference;                      // [layer] -> [H, H] mean |A_a - A_b|
  std::vector<std::vector<HeadSpectrum>> spectrum;  // [layer][head]
  std::vector<float> layer_max;                     // largest attention weight per layer
  std::vector<float> layer_max_skip_first;          // the same without key column 0
  float difference_max = 0;                         // largest head difference over all layers
  std::vector<Map> average;                         // [layer] -> [T, T] mean over heads (rows sum to 1)
  std::shared_ptr<const Sweep> sweep;
  std::vector<CompareResult> compare;               // lesson step: entries shown side by side
  double compute_ms = 0;
};

// Everything but the sweep. Throws hs::Error for bad requests.
std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads = 0);

// Each entry through compute_derived; a failing entry carries its error instead.
std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads = 0);

// The head-count sweep for the request's d_model and tokens (synthetic layers, 5 seeds).
std::shared_ptr<const Sweep> compute_sweep(const ModelRequest& request, const std::vector<std::string>& tokens);

// Two requests that give the same sweep (it ignores heads, groups, width and seed).
bool same_sweep_inputs(const ModelRequest& a, const ModelRequest& b);

}  // namespace hs::gui
