#include "core/analysis/head_sweep.h"

#include <cmath>

#include "core/analysis/head_stats.h"
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

std::vector<SweepPoint> head_count_sweep(const std::vector<std::string>& tokens, const SweepSpec& spec, int threads) {
  if (spec.seeds.empty()) throw InputError("the head-count sweep needs at least one seed");
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
      float ent = 0, srank = 0, erank = 0;
      for (int h = 0; h < H; ++h) {
        ent += mean_entropy(heads[size_t(h)]);
        // The rank a head's width limits: of q_h k_g^T before the mask (the mask's zeros lift it).
        const Map s_h = unmasked_scores(run.queries[0], run.keys[0], h, H, H, p.d_head);  // [T, T]
        srank += float(numerical_rank(singular_values(s_h), run.n_tokens()));
        erank += effective_rank(singular_values(heads[size_t(h)]));
      }
      p.mean_entropy += ent / float(H);
      p.mean_score_rank += srank / float(H);
      p.mean_effective_rank += erank / float(H);
    }
    const float n = float(spec.seeds.size());
    p.mean_head_difference /= n;
    p.mean_head_distance /= n;
    if (p.n_heads == 1) p.mean_head_difference = p.mean_head_distance = std::nanf("");  // no pairs
    p.mean_entropy /= n;
    p.mean_score_rank /= n;
    p.mean_effective_rank /= n;
    points[size_t(idx)] = p;
  });
  return points;
}

}  // namespace hs
