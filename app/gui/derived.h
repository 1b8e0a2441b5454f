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
  // Heatmap axis labels: the tokens, or in long-input mode (run.compact()) one "i-j" token range
  // per block of run.map_factor tokens, matching the display maps' rows and columns.
  std::vector<std::string> map_labels;
  std::string long_input_note;  // long-input mode: what the maps show and what is off
};

// Long-input mode is used when whole maps of every head (and their scores) would take more than
// this many bytes, or when the sentence has more than kLongInputTokens tokens.
constexpr double kWholeMapBudgetBytes = 1024.0 * 1024.0 * 1024.0;
constexpr int kLongInputTokens = 2048;

// Singular values (Head width view, score ranks) are computed up to this many tokens: one SVD of
// a [T, T] matrix per head costs T^3 (seconds per head at T = 2048).
constexpr int kSpectrumMaxTokens = 512;
// ... and while maps x T^3 stays under this (12 heads at T = 256; GPT-2's 144 maps at T = 256 would
// take half a minute of SVDs on every keystroke).
constexpr double kSpectrumBudget = 12.0 * 256 * 256 * 256;
bool spectrum_fits(int64_t tokens, int64_t maps);

// 0 for whole maps, else the display size (cells per side) for a run of `tokens` with `maps`
// [T, T] maps: 1024 for up to 16 maps, 512 for more (144 heatmaps of GPT-2 small).
int display_size_for(int64_t tokens, int64_t maps);

// Token index <-> row/column of the maps in `d` (the same in whole-map mode; blocks of
// run.map_factor tokens in long-input mode). -1 stays -1.
int map_index(const Derived& d, int token);
int map_token(const Derived& d, int index);

// Tooltip text for cell (row, col) of a map of `d` holding `value`: the query and key tokens and
// the weight, or in long-input mode the token ranges and the block's largest weight.
std::string cell_text(const Derived& d, int row, int col, float value, const char* what = "weight");

// Everything but the sweep. Throws hs::Error for bad requests.
std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads = 0,
                                         CheckpointCache* checkpoints = nullptr);

// Each entry through compute_derived; a failing entry carries its error instead.
std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads = 0,
                                           CheckpointCache* checkpoints = nullptr);

// Longest sentence the head-count sweep runs on: it takes an SVD of every head's [T, T] scores at
// every head count, so its cost grows as T^3 (and the worker computes nothing else meanwhile).
constexpr int kSweepMaxTokens = 256;

// The head-count sweep for the request's d_model and tokens (synthetic layers, 5 seeds).
std::shared_ptr<const Sweep> compute_sweep(const ModelRequest& request, const std::vector<std::string>& tokens);

// Two requests that give the same sweep (it ignores heads, groups, width and seed).
bool same_sweep_inputs(const ModelRequest& a, const ModelRequest& b);

}  // namespace hs::gui
