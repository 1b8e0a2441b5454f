#include "app/gui/derived.h"

#include <algorithm>
#include <chrono>

#include "core/analysis/head_stats.h"
#include "core/analysis/spectrum.h"

namespace hs::gui {

std::shared_ptr<Derived> compute_derived(const ModelRequest& request, int threads) {
  const auto start = std::chrono::steady_clock::now();
  auto d = std::make_shared<Derived>();
  d->request = request;
  RunOptions options;
  options.threads = threads;
  options.keep_scores = true;
  d->run = prepare(request)->run(options);
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
  d->compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return d;
}

std::vector<CompareResult> compute_compare(const std::vector<CompareRequest>& entries, int threads) {
  std::vector<CompareResult> out;
  for (const CompareRequest& e : entries) {
    CompareResult r;
    r.label = e.label;
    try {
      r.derived = compute_derived(e.request, threads);
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
