#include "core/analysis/run_analysis.h"

#include <algorithm>
#include <cassert>
#include <chrono>

#include "core/analysis/analysis_cache.h"
#include "core/analysis/head_stats.h"
#include "core/analysis/induction_probe.h"
#include "core/analysis/long_input.h"
#include "core/analysis/rollout.h"
#include "core/analysis/spectrum.h"
#include "core/model/attention_layer.h"
#include "core/model/prefix_cache.h"
#include "core/model/random_weights.h"
#include "core/model/transformer_session.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

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

// Whole maps: largest weights, entropies (from a.row_sums.entropy) and (when kept and asked for)
// the score matrices' singular values.
void fill_whole_maps(RunAnalysis& a, bool spectrum) {
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
      // mean_entropy(m), from the row entropies already summed.
      const std::vector<double>& rows = a.row_sums.entropy[l][h];
      Vec e(m.rows());
      for (Eigen::Index i = 0; i < m.rows(); ++i) e[i] = static_cast<float>(rows[size_t(i)]);
      s.mean_entropy = m.rows() ? e.mean() : 0.0f;
      const bool has_scores = l < r.scores.size() && h < r.scores[l].size() && r.scores[l][h].size() > 0;
      const bool has_qk = l < r.queries.size() && r.queries[l].size() > 0 && l < r.keys.size() && r.keys[l].size() > 0;
      const bool masked = r.info.causal || r.info.window >= 0;
      if (spectrum && has_scores && (has_qk || !masked)) {
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

// The rows of every head that one block of pair_rows reads: about half of a core's L2.
constexpr int64_t kPairBlockBytes = 256 << 10;

// out[p][i] = sum_k |A_a - A_b|(i, k) (double) for every pair p = (a < b), in row-major pair order,
// rows `from` .. T-1; rows before `from` from `old` (same layout). Rows are taken a block at a time
// (at most 8, all heads' rows of a block within kPairBlockBytes) and every pair of the block before
// the next, so the heads' rows are read from L2 rather than once per pair; each row's sum is the same
// expression as one pair at a time, so the sums are the same bit for bit.
std::vector<std::vector<double>> pair_rows(const LayerMaps& heads, const std::vector<std::vector<double>>* old, int from) {
  const int H = int(heads.size());
  const Eigen::Index T = H ? heads[0].rows() : 0;
  std::vector<std::vector<double>> out(size_t(H) * size_t(std::max(0, H - 1)) / 2, std::vector<double>(size_t(T)));
  if (old)
    for (size_t p = 0; p < out.size(); ++p) std::copy((*old)[p].begin(), (*old)[p].begin() + from, out[p].begin());
  const int64_t row_bytes = std::max<int64_t>(1, int64_t(H) * heads[0].cols() * int64_t(sizeof(float)));
  const Eigen::Index block = std::clamp<int64_t>(kPairBlockBytes / row_bytes, 1, 8);
  for (Eigen::Index i0 = old ? from : 0; i0 < T; i0 += block) {
    const Eigen::Index i1 = std::min(T, i0 + block);
    size_t p = 0;
    for (int a = 0; a < H; ++a)
      for (int b = a + 1; b < H; ++b, ++p) {
        const Map& x = heads[size_t(a)];
        const Map& y = heads[size_t(b)];
        assert(x.rows() == y.rows() && x.cols() == y.cols() && "heads of one layer share T");
        for (Eigen::Index i = i0; i < i1; ++i) out[p][size_t(i)] = (x.row(i) - y.row(i)).cwiseAbs().cast<double>().sum();
      }
  }
  return out;
}

// Rows `from` .. T-1 of -sum_k A(i, k) log A(i, k) (double, as row_entropy sums it), rows before from `old`.
std::vector<double> entropy_rows(const Map& m, const std::vector<double>* old, int from) {
  std::vector<double> out(size_t(m.rows()));
  if (old) std::copy(old->begin(), old->begin() + from, out.begin());
  for (Eigen::Index i = old ? from : 0; i < m.rows(); ++i) out[size_t(i)] = row_entropy_at(m, i);
  return out;
}

// Whole maps: every layer's per-row sums (pairs of heads, entropies), rows 0 .. P-1 taken from
// `prev` when given (its run's first P rows are this run's), then the head differences and
// distances from them: difference = total / T^2, distance = 0.5 * total / T, total = sum_i over rows.
void whole_map_rows(RunAnalysis& a, const RunAnalysis* prev, int P, int threads) {
  const AttentionRun& r = a.run;
  const int L = r.n_layers(), T = r.n_tokens();
  a.row_sums.pair.assign(size_t(L), {});
  a.row_sums.entropy.assign(size_t(L), {});
  int64_t work = 0;
  for (const LayerMaps& heads : r.attention) work += int64_t(heads.size()) * int64_t(heads.size() + 1) / 2 * (T - P) * T;
  parallel_for(L, threads_for_work(threads, work * 4), [&](int l) {
    const LayerMaps& heads = r.attention[size_t(l)];
    const int H = int(heads.size());
    auto& pairs = a.row_sums.pair[size_t(l)];
    auto& entropy = a.row_sums.entropy[size_t(l)];
    if (H > 0) pairs = pair_rows(heads, prev ? &prev->row_sums.pair[size_t(l)] : nullptr, P);
    Map& difference = a.difference[size_t(l)];
    Map& distance = a.distance[size_t(l)];
    difference = Map::Zero(H, H), distance = Map::Zero(H, H);
    size_t p = 0;
    for (int x = 0; x < H; ++x)
      for (int y = x + 1; y < H; ++y, ++p) {
        double total = 0.0;
        for (double v : pairs[p]) total += v;
        const Map& m = heads[size_t(x)];
        difference(x, y) = difference(y, x) = m.size() ? static_cast<float>(total / double(m.size())) : 0.0f;
        distance(x, y) = distance(y, x) = m.rows() ? static_cast<float>(0.5 * total / double(m.rows())) : 0.0f;
      }
    for (int h = 0; h < H; ++h)
      entropy.push_back(entropy_rows(heads[size_t(h)], prev ? &prev->row_sums.entropy[size_t(l)][size_t(h)] : nullptr, P));
  });
}

// Attention rollout (rollout.h); with `prev` (its first P rows are this run's, the model causal),
// rows 0 .. P-1 of every layer's rollout are the previous run's and only rows P .. T-1 are
// multiplied: in a product of lower-triangular matrices row i reads rows 0 .. i. `keep`: leave
// the per-layer rollouts in a.row_sums for the next run.
void rollout_rows(RunAnalysis& a, const RunAnalysis* prev, int P, bool keep) {
  if (!prev || prev->row_sums.rollout.size() != a.run.attention.size()) {  // none kept: the whole rollout
    a.rollout = attention_rollout(a.run.attention, -1, keep ? &a.row_sums.rollout : nullptr);
    return;
  }
  const AttentionRun& run = a.run;
  const Eigen::Index T = run.n_tokens(), n = T - P;
  for (size_t l = 0; l < run.attention.size(); ++l) {
    const LayerMaps& heads = run.attention[l];
    // Rows P .. T-1 of Â_l = 0.5 * mean_h A + 0.5 * I, [n, T].
    Map mixed = Map::Zero(n, T);
    for (const Map& m : heads) mixed += m.bottomRows(n);
    mixed *= 0.5f / float(heads.size());
    for (Eigen::Index i = 0; i < n; ++i) mixed(i, P + i) += 0.5f;
    Map r(T, T);  // [T, T]
    r.topRows(P).setZero();
    r.topLeftCorner(P, P) = prev->row_sums.rollout[l].topLeftCorner(P, P);
    if (l == 0) r.bottomRows(n) = mixed;
    else r.bottomRows(n) = mixed * a.row_sums.rollout[l - 1];
    a.row_sums.rollout.push_back(std::move(r));
  }
  if (!a.row_sums.rollout.empty()) a.rollout = a.row_sums.rollout.back();
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

// Everything the views read, from a->run. `prev` (may be null): an analysis whose run's first P
// rows of every map are this run's (a causal decoder's prefix cache), whose row sums are reused.
// `keep_rollout`: keep every layer's rollout for such a next analysis.
void derive(RunAnalysis& a, const RunAnalysis* prev = nullptr, int P = 0, bool keep_rollout = false, int threads = 0,
            bool rollout = true, bool spectrum = true, bool reach = true) {
  const size_t n_layers = size_t(a.run.n_layers());
  a.difference.resize(n_layers);
  a.distance.resize(n_layers);
  a.average.resize(n_layers);
  a.spectrum.assign(n_layers, {});
  a.layer_max.assign(n_layers, 0.0f);
  a.layer_max_skip_first.assign(n_layers, 0.0f);
  Clock::time_point t = Clock::now();
  const auto lap = [&t](double& part) {
    const Clock::time_point now = Clock::now();
    part += std::chrono::duration<double, std::milli>(now - t).count();
    t = now;
  };
  const bool compact = a.run.compact();
  if (!compact) {
    whole_map_rows(a, prev, P, threads);
    a.distance_rows = a.run.n_tokens();
  }
  for (size_t l = 0; l < n_layers; ++l) {
    if (compact) {
      a.difference[l] = head_difference(a.run.attention[l]);
      a.distance[l] = sampled_distance(a.run, int(l), a.distance_rows);
    }
    if (a.difference[l].size() > 0) a.difference_max = std::max(a.difference_max, a.difference[l].maxCoeff());
    if (a.distance[l].size() > 0) a.distance_max = std::max(a.distance_max, a.distance[l].maxCoeff());
  }
  lap(a.times.pairs);
  for (size_t l = 0; l < n_layers; ++l)
    if (!a.run.attention[l].empty()) a.average[l] = head_average(a.run.attention[l]);
  lap(a.times.average);
  if (compact) fill_long_input(a);
  else fill_whole_maps(a, spectrum);
  if (!compact && reach && reach_fits(a.run.info, a.run.n_tokens())) a.reach = head_reach(a.run, threads);
  lap(a.times.per_head);
  if (rollout && !compact && a.run.n_tokens() <= kRolloutMaxTokens) rollout_rows(a, prev, P, keep_rollout);
  lap(a.times.rollout);
}

// MapMode::whole with AnalysisOptions::keep short of every map: long-input mode with the kept maps
// whole when every map would not be kept (the rule, or the engine's memory limit), else whole maps.
// The other heads' block maxima at `display_size` cells a side (0: the rule's size).
void keep_only_asked(MapPlan& plan, int display_size) {
  const double all_bytes = double(plan.tokens) * double(plan.tokens) * double(plan.maps) * sizeof(float);
  if (plan.display_size > 0 || (plan.reason.empty() && all_bytes <= double(max_map_bytes()))) return;
  plan.display_size = display_size > 0 ? display_size : display_size_for(plan.tokens, plan.maps);
  if (plan.display_size == 0) plan.display_size = plan.maps <= 16 ? 1024 : 512;
  if (plan.reason.empty()) {
    plan.reason = "whole maps of " + std::to_string(plan.maps) + " heads at " + std::to_string(plan.tokens) +
                  " tokens are over the memory limit";
  }
}

// The plan of a run: tokens, maps, whole maps or long-input mode and why.
MapPlan plan_of(const Prepared& prepared, const AnalysisOptions& options) {
  MapPlan plan;
  plan.tokens = prepared.tokens();
  plan.maps = prepared.maps();
  plan.display_size = chosen_display_size(options, plan.tokens, plan.maps);
  plan.reason = long_input_reason(plan.tokens, plan.maps);
  // Maps read from a file are whole already (the reader checked they fit): shown as they are.
  if (prepared.whole_maps_only() && options.maps == MapMode::automatic) plan.display_size = 0, plan.reason.clear();
  if (!options.keep.every && options.maps == MapMode::whole && !prepared.whole_maps_only()) keep_only_asked(plan, options.display_size);
  plan.kept = plan.display_size == 0 ? MapSelection::all() : options.keep.every ? MapSelection::none() : options.keep;
  return plan;
}

// Live typing for one analysis: the engine's prefix cache (null: a whole run; timing runs with
// repeat > 1 empty it) and the previous analysis, whose row sums this one reuses when the engine
// reuses its prefix.
struct LiveTyping {
  PrefixCache* engine = nullptr;
  AnalysisCache* analyses = nullptr;
  std::shared_ptr<const RunAnalysis> previous;

  explicit LiveTyping(const AnalysisOptions& options) : analyses(options.analysis_cache) {
    PrefixCache* cache = options.prefix_cache;
    if (cache) cache->reused = -1, cache->filled = false;
    if (cache && options.repeat == 1) engine = cache;
    else if (cache) cache->clear();
    if (analyses) previous = analyses->previous(engine);
    if (analyses && !engine) analyses->clear();
  }
  // After the engine ran: the cache holds the run inside `a` (immutable once handed out: no copy
  // of its maps); the previous analysis is now held only by `previous`.
  void ran(const std::shared_ptr<RunAnalysis>& a) {
    if (!engine) return;
    a->reused_tokens = engine->reused;
    engine->keep(std::shared_ptr<const AttentionRun>(a, &a->run));
    if (analyses) analyses->clear();
  }
  // The next analysis may reuse the row sums of `a` (when the engine kept its run).
  void done(std::shared_ptr<const RunAnalysis> a) {
    if (engine && analyses) analyses->keep(std::move(a), *engine);
  }
};

// Role scores of the run, and the induction probe: the same model on [BOS] r r, n random ids
// (shorter when the model's positions are few), whole maps.
HeadRoles roles_of(const Prepared& prepared, const AttentionRun& run, const AnalysisOptions& options,
                   const RowEntropies& entropies) {
  const Prepared::Vocabulary v = prepared.vocabulary();
  RoleOptions o = options.role_options;
  o.probe_length = fitted_probe_length(v, o.probe_length);
  ProbeRun probe;
  if (options.induction_probe) probe = run_induction_probe(prepared, o, options.threads);
  HeadRoles roles = compute_head_roles(run, v.bos_id, probe.ids.empty() ? nullptr : &probe.run, probe.ids, o,
                                       kDistanceSampleRows, options.threads, &entropies);
  // Induction as the mean over the probes (the first already run), with its 95% interval. One
  // probe: compute_head_roles has scored and labelled it already.
  if (!probe.ids.empty() && o.probe_seeds > 1)
    roles = with_induction(std::move(roles), induction_over_seeds(prepared, o, options.threads, &probe));
  return roles;
}

}  // namespace

int RunAnalysis::map_index(int token) const { return token < 0 ? -1 : token / std::max(1, run.map_factor); }

int RunAnalysis::map_token(int index) const { return index < 0 ? -1 : index * std::max(1, run.map_factor); }

std::shared_ptr<const RunAnalysis> analyse(const ModelRequest& request, const AnalysisOptions& options) {
  const Clock::time_point start = Clock::now();
  if (options.repeat < 1) throw InputError("repeat (" + std::to_string(options.repeat) + ") must be 1 or more");
  auto a = std::make_shared<RunAnalysis>();
  a->request = request;
  const std::unique_ptr<Prepared> prepared = prepare(request, options.checkpoints);
  a->times.prepare = ms_since(start);
  const MapPlan plan = plan_of(*prepared, options);
  if (options.check_plan) options.check_plan(plan);
  RunOptions run_options;
  run_options.threads = options.threads;
  run_options.all_next_tokens = options.all_next_tokens;
  run_options.observer = options.observer;
  run_options.display_size = plan.display_size;
  if (plan.display_size > 0) run_options.keep = plan.kept;
  run_options.stream_rows = options.stream_rows;
  // The q, k and scores are kept for singular values and for reachable keys alike, within one rule.
  run_options.keep_scores = (options.spectrum || options.reach) && run_options.display_size == 0 &&
                            spectrum_fits(prepared->tokens(), prepared->maps());
  LiveTyping live(options);
  run_options.prefix_cache = live.engine;
  for (int i = 0; i < options.repeat; ++i) {
    const Clock::time_point t0 = Clock::now();
    a->run = prepared->run(run_options);
    a->engine_ms.push_back(ms_since(t0));
    a->times.engine += a->engine_ms.back();
  }
  live.ran(a);
  if (a->run.compact()) a->long_input_reason = plan.reason.empty() ? "asked for" : plan.reason;
  const RunAnalysis* prev = reusable_rows(live.previous.get(), *a);
  derive(*a, prev, prev ? a->reused_tokens : 0, live.engine != nullptr, options.threads, options.rollout, options.spectrum,
         options.reach);
  live.previous.reset();  // the previous run's maps are freed here when the cache no longer holds them
  const Clock::time_point roles_start = Clock::now();
  if (options.roles) a->roles = roles_of(*prepared, a->run, options, a->row_sums.entropy);
  a->times.roles = ms_since(roles_start);
  live.done(a);
  a->compute_ms = ms_since(start);
  return a;
}

namespace {

// The initialisation of null_head_roles' models, in words (the JSON and the table say it).
std::string null_roles_initialisation(const std::string& kind, uint64_t seed, int models) {
  const std::string seeds = "seeds " + std::to_string(seed) + " to " + std::to_string(seed + uint64_t(models) - 1);
  if (kind == "synthetic") return "the synthetic layer's own initialisation (as --seed draws it), " + seeds;
  return std::string(kRandomWeightsInit) + "; " + seeds;
}

// Null model k: the synthetic layer with another seed, or a random-weight copy of the checkpoint.
std::unique_ptr<Prepared> null_roles_model(const ModelRequest& request, const AttentionRun& run, const Prepared* loaded,
                                           uint64_t seed, CheckpointCache* checkpoints) {
  if (run.info.kind == "synthetic") {
    ModelRequest r = request;
    r.seed = seed;
    return prepare(r, checkpoints);
  }
  const auto* session = dynamic_cast<const TransformerSession*>(loaded);
  if (!session || run.token_ids.empty()) {
    throw InputError("--null: " + run.info.name + " (" + run.info.kind + ") has no random-weight copy; null models are " +
                     "made for Llama-family checkpoints (llama2.c, GGUF, Hugging Face llama, qwen2, qwen3, mistral, " +
                     "phi3, gemma) and the synthetic layer");
  }
  return session->with_model(random_weight_model(session->model(), seed), run.token_ids);
}

}  // namespace

NullRoleScores null_head_roles(const ModelRequest& request, const AttentionRun& run, int models, uint64_t seed,
                               const AnalysisOptions& options) {
  if (models < 1 || models > 1000) throw InputError("--null (" + std::to_string(models) + ") must be from 1 to 1000 models");
  std::unique_ptr<Prepared> loaded;
  if (run.info.kind != "synthetic") loaded = prepare(request, options.checkpoints);
  std::vector<HeadRoles> each;
  for (int k = 0; k < models; ++k) {
    const std::unique_ptr<Prepared> model = null_roles_model(request, run, loaded.get(), seed + uint64_t(k), options.checkpoints);
    RunOptions run_options;
    run_options.threads = options.threads;
    run_options.display_size = plan_of(*model, options).display_size;
    run_options.all_next_tokens = false;  // the roles read maps only
    const AttentionRun null_run = model->run(run_options);
    each.push_back(roles_of(*model, null_run, options, RowEntropies{}));
  }
  return pool_null_roles(each, seed, null_roles_initialisation(run.info.kind, seed, models));
}

std::shared_ptr<const RunAnalysis> analyse_run(AttentionRun run, ModelRequest request) {
  const Clock::time_point start = Clock::now();
  auto a = std::make_shared<RunAnalysis>();
  a->request = std::move(request);
  a->run = std::move(run);
  if (a->run.compact()) a->long_input_reason = "asked for";
  derive(*a);
  const Clock::time_point roles_start = Clock::now();
  a->roles = compute_head_roles(a->run, -1, nullptr, {}, RoleOptions{}, kDistanceSampleRows, 0, &a->row_sums.entropy);
  a->times.roles = ms_since(roles_start);
  a->compute_ms = ms_since(start);
  return a;
}

}  // namespace hs
