#include "core/analysis/run_analysis.h"

#include <algorithm>
#include <chrono>

#include "core/analysis/head_stats.h"
#include "core/analysis/induction_probe.h"
#include "core/analysis/long_input.h"
#include "core/analysis/rollout.h"
#include "core/analysis/spectrum.h"
#include "core/model/prefix_cache.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The display size the options ask for, checked: 0 for whole maps.
int chosen_display_size(const AnalysisOptions& o, int64_t tokens, int64_t maps) {
  if (o.display_size < 0 || o.display_size > kMaxDisplaySize) {
    throw InputError("display size (" + std::to_string(o.display_size) + ") must be from 1 to " +
                     std::to_string(kMaxDisplaySize) + " cells per side");
  }
  switch (o.maps) {
    case MapMode::automatic: return display_size_for(tokens, maps);
    case MapMode::whole: return 0;
    case MapMode::long_input: return o.display_size > 0 ? o.display_size : maps <= 16 ? 1024 : 512;
  }
  return 0;
}

// "a-b" for each block of f tokens: the rows and columns of the display maps.
std::vector<std::string> block_labels(int tokens, int f) {
  std::vector<std::string> labels;
  for (int a = 0; a < tokens; a += f) labels.push_back(std::to_string(a) + "-" + std::to_string(std::min(tokens, a + f) - 1));
  return labels;
}

// Long-input mode: the exact per-head numbers the run kept; no singular values (an SVD of a
// [T, T] score matrix per head is far too slow at these lengths).
void fill_long_input(RunAnalysis& a) {
  const AttentionRun& r = a.run;
  const int f = r.map_factor, p = r.attention.empty() || r.attention[0].empty() ? 0 : int(r.attention[0][0].rows());
  a.map_labels = block_labels(r.n_tokens(), f);
  a.long_input_note = std::to_string(r.n_tokens()) + " tokens: long-input mode. Each heatmap cell is the largest weight of a " +
                      std::to_string(f) + " x " + std::to_string(f) + " block of tokens (" + std::to_string(p) + " x " +
                      std::to_string(p) + " cells per head); entropy, largest weights and the query view are exact; the "
                      "average and head differences are taken over the block maxima, head distances over the exact rows of " +
                      std::to_string(std::min(r.n_tokens(), kDistanceSampleRows)) +
                      " evenly spaced queries; export writes the block maxima, labelled as such; singular values are off.";
  for (size_t l = 0; l < r.head_numbers.size(); ++l)
    for (const HeadNumbers& n : r.head_numbers[l]) {
      a.layer_max[l] = std::max(a.layer_max[l], n.max);
      a.layer_max_skip_first[l] = std::max(a.layer_max_skip_first[l], n.max_skip_first);
      HeadSpectrum s;
      s.mean_entropy = n.mean_entropy;
      a.spectrum[l].push_back(std::move(s));
    }
}

// The largest weight outside key column 0 or, when the run marks special tokens ([CLS], [SEP],
// <s>), outside their columns: the range "ignore first key" shows (colour_scale_max's rule).
float max_outside_keys(const Map& m, const std::vector<bool>& special) {
  if (std::find(special.begin(), special.end(), true) == special.end()) return m.rightCols(m.cols() - 1).maxCoeff();
  float best = 0.0f;
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    if (size_t(j) >= special.size() || !special[size_t(j)]) best = std::max(best, m.col(j).maxCoeff());
  return best;
}

// Whole maps: largest weights, entropies and (when kept) the score matrices' singular values.
void fill_whole_maps(RunAnalysis& a) {
  const AttentionRun& r = a.run;
  for (size_t l = 0; l < r.attention.size(); ++l) {
    const LayerMaps& heads = r.attention[l];
    for (size_t h = 0; h < heads.size(); ++h) {
      const Map& m = heads[h];  // [T, T]
      if (m.size() == 0) continue;
      a.layer_max[l] = std::max(a.layer_max[l], m.maxCoeff());
      // "Ignore first key": key 0, or every special token's key column when the run has them.
      if (m.cols() > 1) a.layer_max_skip_first[l] = std::max(a.layer_max_skip_first[l], max_outside_keys(m, r.special_tokens));
      HeadSpectrum s;
      s.mean_entropy = mean_entropy(m);
      const bool has_scores = l < r.scores.size() && h < r.scores[l].size() && r.scores[l][h].size() > 0;
      const bool has_qk = l < r.queries.size() && r.queries[l].size() > 0 && l < r.keys.size() && r.keys[l].size() > 0;
      const bool masked = r.info.causal || r.info.window >= 0;
      if (has_scores && (has_qk || !masked)) {
        const Map& scores = r.scores[l][h];  // [T, T], masked cells -inf
        const Map unmasked = has_qk ? unmasked_scores(r.queries[l], r.keys[l], int(h), r.info.n_heads,
                                                      r.info.n_kv_heads, r.info.d_head)
                                    : scores;  // [T, T]
        s.singular_values = singular_values(unmasked);
        s.score_rank = numerical_rank(s.singular_values, int(unmasked.rows()));
        s.effective_rank = effective_rank(s.singular_values);
        if (masked) s.masked_rank = numerical_rank(singular_values(scores), int(scores.rows()));
      }
      a.spectrum[l].push_back(std::move(s));
    }
  }
  a.map_labels = r.tokens;
}

// Long-input mode: the head distance over the exact rows of up to kDistanceSampleRows evenly
// spaced queries (no whole map exists to average over every query).
Map sampled_distance(const AttentionRun& r, int layer, int& rows_used) {
  const int T = r.n_tokens(), H = r.n_heads(), R = std::min(T, kDistanceSampleRows);
  LayerMaps rows(size_t(H), Map(R, T));  // [H] -> [R, T]
  for (int i = 0; i < R; ++i) {
    const int q = int((int64_t(i) * T + T / 2) / R);  // evenly spaced, centred in each stretch
    for (int h = 0; h < H; ++h) rows[size_t(h)].row(i) = r.exact->row(layer, h, q).transpose();
  }
  rows_used = R;
  return head_distance_of_rows(rows);
}

// Everything the views read, from a->run.
void derive(RunAnalysis& a) {
  const size_t n_layers = size_t(a.run.n_layers());
  a.difference.resize(n_layers);
  a.distance.resize(n_layers);
  a.average.resize(n_layers);
  a.spectrum.assign(n_layers, {});
  a.layer_max.assign(n_layers, 0.0f);
  a.layer_max_skip_first.assign(n_layers, 0.0f);
  for (size_t l = 0; l < n_layers; ++l) {
    const LayerMaps& heads = a.run.attention[l];
    a.difference[l] = head_difference(heads);
    if (!heads.empty()) a.average[l] = head_average(heads);
    if (a.difference[l].size() > 0) a.difference_max = std::max(a.difference_max, a.difference[l].maxCoeff());
    if (a.run.compact()) {
      a.distance[l] = sampled_distance(a.run, int(l), a.distance_rows);
    } else {
      a.distance[l] = head_distance(heads);
      a.distance_rows = a.run.n_tokens();
    }
    if (a.distance[l].size() > 0) a.distance_max = std::max(a.distance_max, a.distance[l].maxCoeff());
  }
  if (a.run.compact()) fill_long_input(a);
  else fill_whole_maps(a);
  if (!a.run.compact() && a.run.n_tokens() <= kRolloutMaxTokens) a.rollout = attention_rollout(a.run.attention);
}

// Role scores of the run, and the induction probe: the same model on [BOS] r r, n random ids
// (shorter when the model's positions are few), whole maps.
HeadRoles roles_of(const Prepared& prepared, const AttentionRun& run, const AnalysisOptions& options) {
  const Prepared::Vocabulary v = prepared.vocabulary();
  RoleOptions o = options.role_options;
  o.probe_length = fitted_probe_length(v, o.probe_length);
  ProbeRun probe;
  if (options.induction_probe) probe = run_induction_probe(prepared, o, options.threads);
  return compute_head_roles(run, v.bos_id, probe.ids.empty() ? nullptr : &probe.run, probe.ids, o, kDistanceSampleRows,
                            options.threads);
}

}  // namespace

const Map& pair_measure(const RunAnalysis& a, PairMeasure measure, int layer) {
  return measure == PairMeasure::distance ? a.distance[size_t(layer)] : a.difference[size_t(layer)];
}

int RunAnalysis::map_index(int token) const { return token < 0 ? -1 : token / std::max(1, run.map_factor); }

int RunAnalysis::map_token(int index) const { return index < 0 ? -1 : index * std::max(1, run.map_factor); }

std::shared_ptr<const RunAnalysis> analyse(const ModelRequest& request, const AnalysisOptions& options) {
  const Clock::time_point start = Clock::now();
  if (options.repeat < 1) throw InputError("repeat (" + std::to_string(options.repeat) + ") must be 1 or more");
  auto a = std::make_shared<RunAnalysis>();
  a->request = request;
  const std::unique_ptr<Prepared> prepared = prepare(request, options.checkpoints);
  RunOptions run_options;
  run_options.threads = options.threads;
  MapPlan plan;
  plan.tokens = prepared->tokens();
  plan.maps = prepared->maps();
  plan.display_size = chosen_display_size(options, plan.tokens, plan.maps);
  plan.reason = long_input_reason(plan.tokens, plan.maps);
  // Maps read from a file are whole already (the reader checked they fit): shown as they are.
  if (prepared->whole_maps_only() && options.maps == MapMode::automatic) plan.display_size = 0, plan.reason.clear();
  if (options.check_plan) options.check_plan(plan);
  run_options.display_size = plan.display_size;
  run_options.keep_scores =
      options.spectrum && run_options.display_size == 0 && spectrum_fits(prepared->tokens(), prepared->maps());
  if (options.prefix_cache) options.prefix_cache->reused = -1, options.prefix_cache->filled = false;
  if (options.repeat == 1) run_options.prefix_cache = options.prefix_cache;
  else if (options.prefix_cache) options.prefix_cache->clear();
  for (int i = 0; i < options.repeat; ++i) {
    const Clock::time_point t0 = Clock::now();
    a->run = prepared->run(run_options);
    a->engine_ms.push_back(ms_since(t0));
  }
  if (run_options.prefix_cache) {
    a->reused_tokens = run_options.prefix_cache->reused;
    // The cache holds the run inside this (immutable) analysis: no copy of its maps.
    run_options.prefix_cache->keep(std::shared_ptr<const AttentionRun>(a, &a->run));
  }
  if (a->run.compact()) a->long_input_reason = plan.reason.empty() ? "asked for" : plan.reason;
  derive(*a);
  if (options.roles) a->roles = roles_of(*prepared, a->run, options);
  a->compute_ms = ms_since(start);
  return a;
}

std::shared_ptr<const RunAnalysis> analyse_run(AttentionRun run, ModelRequest request) {
  const Clock::time_point start = Clock::now();
  auto a = std::make_shared<RunAnalysis>();
  a->request = std::move(request);
  a->run = std::move(run);
  if (a->run.compact()) a->long_input_reason = "asked for";
  derive(*a);
  a->roles = compute_head_roles(a->run, -1, nullptr, {}, RoleOptions{}, kDistanceSampleRows);
  a->compute_ms = ms_since(start);
  return a;
}

}  // namespace hs
