#include "core/analysis/head_sweep.h"

#include <cmath>
#include <sstream>

#include "core/analysis/head_stats.h"
#include "core/analysis/reachable_keys.h"
#include "core/analysis/spectrum.h"
#include "core/model/synthetic_model.h"
#include "core/util/errors.h"
#include "core/util/parallel.h"

namespace hs {

std::vector<int> head_count_divisors(int d_model) {
  std::vector<int> out;
  for (int h = 1; h <= d_model && h <= kMaxHeads; ++h)
    if (d_model % h == 0) out.push_back(h);
  return out;
}

double head_sweep_work(int64_t tokens, int d_model, size_t seeds) {
  const double T = double(tokens), d = double(d_model);
  constexpr double kPerSvd = 1e5;  // BDCSVD's set-up, whatever the size (measured: ~0.1 ms)
  constexpr double kPerDraw = 4;   // one random weight costs about four multiply-adds
  double per_seed = 0;
  for (const int h : head_count_divisors(d_model)) {
    const double reach = T * T * (d / h + 1) * (d / h + 1);
    per_seed += kPerDraw * 4 * d * d + 4 * T * d * d + 2 * T * T * d + double(h) * h * T * T +
                double(h) * (2 * (T * T * T + kPerSvd) + reach);
  }
  return double(seeds) * per_seed;
}

std::string head_sweep_refusal(int64_t T, int d, size_t seeds) {
  const double work = head_sweep_work(T, d, seeds);
  if (work <= kMaxSweepWork) return "";
  int64_t lo = 0, hi = T;  // the most tokens that fit: lo fits (or is 0), hi does not
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (head_sweep_work(mid, d, seeds) <= kMaxSweepWork ? lo : hi) = mid;
  }
  std::ostringstream msg;
  msg.precision(2);
  msg << "the head-count sweep for d_model " << d << " on " << T << " tokens would take about " << work << " steps ("
      << head_count_divisors(d).size() << " head counts x " << seeds
      << " seeds, a T x T singular-value decomposition per head); the limit is " << kMaxSweepWork << ": ";
  if (lo >= 1) msg << "at most " << lo << " tokens fit for d_model " << d << " (use a shorter sentence or a smaller d_model)";
  else msg << "d_model " << d << " is too wide for it on any sentence (use a smaller d_model)";
  return msg.str();
}

std::vector<SweepPoint> head_count_sweep(const std::vector<std::string>& tokens, const SweepSpec& spec, int threads) {
  if (spec.seeds.empty()) throw InputError("the head-count sweep needs at least one seed");
  AttentionConfig one_head = spec.base;  // the base's own head count does not matter: every divisor is swept
  one_head.n_heads = 1;
  one_head.n_kv_heads = 0;
  one_head.d_head = 0;
  one_head.validate();
  const int64_t T = int64_t(tokens.size());
  const int d = spec.base.d_model;
  if (const std::string why = head_sweep_refusal(T, d, spec.seeds.size()); !why.empty()) throw InputError(why);
  const std::vector<int> counts = head_count_divisors(spec.base.d_model);
  std::vector<SweepPoint> points(counts.size());
  parallel_for(static_cast<int>(counts.size()), threads, [&](int idx) {
    SyntheticSpec s;
    s.attention = spec.base;
    s.attention.n_heads = counts[size_t(idx)];
    s.attention.n_kv_heads = 0;
    s.attention.d_head = 0;
    SweepPoint p;
    p.n_heads = s.attention.n_heads;
    p.d_head = s.attention.head_width();
    p.param_count = attention_param_count(s.attention);
    for (uint64_t seed : spec.seeds) {
      s.seed = seed;
      RunOptions opt;
      opt.threads = 1;
      opt.keep_scores = true;
      const AttentionRun run = run_synthetic_tokens(tokens, s, opt);
      const LayerMaps& heads = run.attention[0];
      const int H = static_cast<int>(heads.size());
      if (H > 1) {
        const Map diff = head_difference(heads), dist = head_distance(heads);
        p.mean_head_difference += diff.sum() / float(H * (H - 1));
        p.mean_head_distance += dist.sum() / float(H * (H - 1));
      }
      float ent = 0, srank = 0, erank = 0, reach = 0;
      for (int h = 0; h < H; ++h) {
        ent += mean_entropy(heads[size_t(h)]);
        // The rank a head's width limits: of q_h k_g^T before the mask (the mask's zeros lift it).
        const Map s_h = unmasked_scores(run.queries[0], run.keys[0], h, H, H, p.d_head);  // [T, T]
        srank += float(numerical_rank(singular_values(s_h), run.n_tokens()));
        erank += effective_rank(singular_values(heads[size_t(h)]));
        reach += float(reachable_keys(run.keys[0].middleCols(Eigen::Index(h) * p.d_head, p.d_head)).size());
      }
      p.mean_entropy += ent / float(H);
      p.mean_score_rank += srank / float(H);
      p.mean_effective_rank += erank / float(H);
      p.mean_reachable_keys += reach / float(H);
    }
    const float n = float(spec.seeds.size());
    p.mean_head_difference /= n;
    p.mean_head_distance /= n;
    if (p.n_heads == 1) p.mean_head_difference = p.mean_head_distance = std::nanf("");  // no pairs
    p.mean_entropy /= n;
    p.mean_score_rank /= n;
    p.mean_effective_rank /= n;
    p.mean_reachable_keys /= n;
    points[size_t(idx)] = p;
  });
  return points;
}

}  // namespace hs
