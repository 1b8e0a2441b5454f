#include "app/gui/derived.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "app/gui/labels.h"
#include "core/analysis/head_stats.h"
#include "core/analysis/spectrum.h"

namespace hs::gui {

int display_size_for(int64_t tokens, int64_t maps) {
  const double whole = double(tokens) * double(tokens) * double(maps) * sizeof(float) * 2;  // maps + scores
  if (tokens <= kLongInputTokens && whole <= kWholeMapBudgetBytes) return 0;
  return maps <= 16 ? 1024 : 512;
}

int map_index(const Derived& d, int token) { return token < 0 ? -1 : token / std::max(1, d.run.map_factor); }

int map_token(const Derived& d, int index) { return index < 0 ? -1 : index * std::max(1, d.run.map_factor); }

std::string cell_text(const Derived& d, int row, int col, float value, const char* what) {
  const std::string w = format_weight(value);
  const auto& labels = d.map_labels;
  if (row < 0 || col < 0 || size_t(row) >= labels.size() || size_t(col) >= labels.size()) return "";
  if (d.run.compact()) {
    return "queries " + labels[size_t(row)] + " \xE2\x86\x92 keys " + labels[size_t(col)] + "\nlargest " + what +
           " in this block: " + w;
  }
  return "query " + std::to_string(row) + " \"" + labels[size_t(row)] + "\" \xE2\x86\x92 key " + std::to_string(col) +
         " \"" + labels[size_t(col)] + "\"\n" + what + " " + w;
}

bool spectrum_fits(int64_t tokens, int64_t maps) {
  return tokens <= kSpectrumMaxTokens && double(maps) * double(tokens) * double(tokens) * double(tokens) <= kSpectrumBudget;
}

namespace {

// "a-b" for each block of f tokens: the rows and columns of the display maps.
std::vector<std::string> block_labels(int tokens, int f) {
  std::vector<std::string> labels;
  for (int a = 0; a < tokens; a += f) labels.push_back(std::to_string(a) + "-" + std::to_string(std::min(tokens, a + f) - 1));
  return labels;
}

// Long-input mode: the exact per-head numbers the run kept; no singular values (an SVD of a
// [T, T] score matrix per head is far too slow at these lengths).
void fill_long_input(Derived& d) {
  const AttentionRun& r = d.run;
  const int f = r.map_factor, p = r.attention.empty() || r.attention[0].empty() ? 0 : int(r.attention[0][0].rows());
  d.map_labels = block_labels(r.n_tokens(), f);
  d.long_input_note = std::to_string(r.n_tokens()) + " tokens: long-input mode. Each heatmap cell is the largest weight of a " +
                      std::to_string(f) + " x " + std::to_string(f) + " block of tokens (" + std::to_string(p) + " x " +
                      std::to_string(p) + " cells per head); entropy, largest weights and the query view are exact; the "
                      "average and head differences are taken over the block maxima; singular values and export are off.";
  for (size_t l = 0; l < r.head_numbers.size(); ++l)
    for (const HeadNumbers& n : r.head_numbers[l]) {
      d.layer_max[l] = std::max(d.layer_max[l], n.max);
      d.layer_max_skip_first[l] = std::max(d.layer_max_skip_first[l], n.max_skip_first);
      HeadSpectrum s;
      s.mean_entropy = n.mean_entropy;
      d.spectrum[l].push_back(std::move(s));
    }
}

}  // namespace

std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads, CheckpointCache* checkpoints) {
  const auto start = std::chrono::steady_clock::now();
  auto d = std::make_shared<Derived>();
  d->request = request;
  const std::unique_ptr<Prepared> prepared = prepare(request, checkpoints);
  RunOptions options;
  options.threads = threads;
  options.display_size = display_size_for(prepared->tokens(), prepared->maps());
  options.keep_scores = options.display_size == 0 && spectrum_fits(prepared->tokens(), prepared->maps());
  d->run = prepared->run(options);
  const int n_layers = d->run.n_layers();
  d->difference.resize(size_t(n_layers));
  d->spectrum.resize(size_t(n_layers));
  d->layer_max.assign(size_t(n_layers), 0.0f);
  d->layer_max_skip_first.assign(size_t(n_layers), 0.0f);
  d->average.resize(size_t(n_layers));
  for (int l = 0; l < n_layers; ++l) {
    const LayerMaps& heads = d->run.attention[size_t(l)];
    d->difference[size_t(l)] = head_difference(heads);
    if (!heads.empty()) d->average[size_t(l)] = head_average(heads);
    if (d->difference[size_t(l)].size() > 0)
      d->difference_max = std::max(d->difference_max, d->difference[size_t(l)].maxCoeff());
    if (d->run.compact()) continue;  // numbers below come from the run (fill_long_input)
    for (size_t h = 0; h < heads.size(); ++h) {
      const Map& a = heads[h];  // [T, T]
      if (a.size() == 0) continue;
      d->layer_max[size_t(l)] = std::max(d->layer_max[size_t(l)], a.maxCoeff());
      if (a.cols() > 1)
        d->layer_max_skip_first[size_t(l)] =
            std::max(d->layer_max_skip_first[size_t(l)], a.rightCols(a.cols() - 1).maxCoeff());
      HeadSpectrum s;
      s.mean_entropy = mean_entropy(a);
      const bool has_scores = size_t(l) < d->run.scores.size() && h < d->run.scores[size_t(l)].size() &&
                              d->run.scores[size_t(l)][h].size() > 0;
      if (has_scores) {
        const Map& scores = d->run.scores[size_t(l)][h];  // [T, T]
        s.singular_values = singular_values(scores);
        s.score_rank = numerical_rank(s.singular_values, int(scores.rows()));
        s.effective_rank = effective_rank(s.singular_values);
      }
      d->spectrum[size_t(l)].push_back(std::move(s));
    }
  }
  if (d->run.compact()) fill_long_input(*d);
  else d->map_labels = d->run.tokens;
  d->compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return d;
}

std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads,
                                           CheckpointCache* checkpoints) {
  std::vector<CompareResult> out;
  for (const CompareRequest& e : entries) {
    CompareResult r;
    r.label = e.label;
    try {
      r.derived = compute_derived(e.request, threads, checkpoints);
    } catch (const std::exception& ex) {
      r.error = ex.what();
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::shared_ptr<const Sweep> compute_sweep(const ModelRequest& request, const std::vector<std::string>& tokens) {
  auto sweep = std::make_shared<Sweep>();
  sweep->d_model = request.attention.d_model;
  sweep->masked = request.attention.causal || request.attention.window >= 0;
  if (!request.model_path.empty() || !request.weights.empty() || !request.input_npy.empty()) {
    sweep->note = "The head-count sweep re-initialises a synthetic layer at every head count, so it runs for the "
                  "synthetic model on a sentence only.";
    return sweep;
  }
  if (int(tokens.size()) > kSweepMaxTokens) {
    sweep->note = "The head-count sweep takes singular values of every head's T x T score matrix at every head count; "
                  "it runs for sentences of up to " + std::to_string(kSweepMaxTokens) + " tokens (this one has " +
                  std::to_string(tokens.size()) + ").";
    return sweep;
  }
  SweepSpec spec;
  spec.base = request.attention;
  spec.base.n_kv_heads = 0;
  spec.base.d_head = 0;
  spec.base.scrambled_reshape = false;  // the sweep is about head counts, done the correct way
  sweep->points = head_count_sweep(tokens, spec);
  sweep->available = true;
  sweep->note = "Each point averages " + std::to_string(spec.seeds.size()) + " seeds.";
  return sweep;
}

bool same_sweep_inputs(const ModelRequest& a, const ModelRequest& b) {
  const AttentionConfig &x = a.attention, &y = b.attention;
  return a.sentence == b.sentence && a.input_npy == b.input_npy && a.weights == b.weights &&
         a.model_path == b.model_path && x.d_model == y.d_model && x.causal == y.causal && x.window == y.window &&
         x.temperature == y.temperature && x.bias == y.bias;
}

}  // namespace hs::gui
