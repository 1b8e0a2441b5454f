#include "core/analysis/induction_probe.h"

#include <algorithm>
#include <cmath>

namespace hs {

int fitted_probe_length(const Prepared::Vocabulary& v, int wanted) {
  const int offset = v.bos_id >= 0 ? 1 : 0;
  return std::min({wanted, (v.max_tokens - offset) / 2, v.size - offset});
}

ProbeRun run_induction_probe(const Prepared& prepared, const RoleOptions& options, int threads) {
  ProbeRun out;
  const Prepared::Vocabulary v = prepared.vocabulary();
  const int n = fitted_probe_length(v, options.probe_length);
  if (v.size <= 0 || n < 2) return out;
  out.ids = induction_probe_ids(v.size, v.bos_id, n, options.probe_seed);
  RunOptions ro;
  ro.threads = threads;
  ro.all_next_tokens = false;  // the roles read only its maps: predict after its last token only
  out.run = prepared.run_ids(out.ids, ro);
  return out;
}

namespace {

// Student's t quantile for a two-sided 95% interval with `df` degrees of freedom (1.96 past 30).
double t975(int df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? table[df - 1] : 1.96;
}

}  // namespace

InductionScores induction_over_seeds(const Prepared& prepared, const RoleOptions& options, int threads,
                                     const ProbeRun* first) {
  InductionScores out;
  const int seeds = std::max(1, options.probe_seeds);
  const int offset = prepared.vocabulary().bos_id >= 0 ? 1 : 0;
  std::vector<std::vector<std::vector<double>>> per_seed;  // [seed][layer][head]
  for (int s = 0; s < seeds; ++s) {
    RoleOptions o = options;
    o.probe_seed = options.probe_seed + uint64_t(s);
    ProbeRun own;
    const ProbeRun& probe = s == 0 && first ? *first : (own = run_induction_probe(prepared, o, threads));
    if (probe.ids.empty()) return out;
    const int n = (int(probe.ids.size()) - offset) / 2;
    if (s == 0) out.probe_ids = probe.ids, out.probe_length = n;
    std::vector<std::vector<double>> scores;
    for (const LayerMaps& layer : probe.run.attention) {
      std::vector<double> row;
      for (const Map& m : layer) row.push_back(induction_score(m, offset, n));  // m: [P, P] of the probe
      scores.push_back(std::move(row));
    }
    per_seed.push_back(std::move(scores));
  }
  const size_t L = per_seed[0].size();
  for (size_t l = 0; l < L; ++l) {
    const size_t H = per_seed[0][l].size();
    std::vector<float> mean(H), half(H);
    for (size_t h = 0; h < H; ++h) {
      double sum = 0, sq = 0;
      for (const auto& s : per_seed) sum += s[l][h];
      const double m = sum / seeds;
      for (const auto& s : per_seed) sq += (s[l][h] - m) * (s[l][h] - m);
      mean[h] = float(m);
      half[h] = seeds > 1 ? float(t975(seeds - 1) * std::sqrt(sq / (seeds - 1)) / std::sqrt(double(seeds))) : 0.0f;
    }
    out.score.push_back(std::move(mean));
    if (seeds > 1) out.ci95.push_back(std::move(half));
  }
  out.seeds = seeds;
  out.measured = true;
  return out;
}

InductionScores measure_induction(const ModelRequest& request, const RoleOptions& options, int threads,
                                  CheckpointCache* cache) {
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  RoleOptions o = options;
  o.probe_length = fitted_probe_length(prepared->vocabulary(), o.probe_length);
  return induction_over_seeds(*prepared, o, threads);
}

HeadRoles with_induction(HeadRoles roles, const InductionScores& induction) {
  if (!induction.measured || int(induction.score.size()) != roles.n_layers()) return roles;
  for (int l = 0; l < roles.n_layers(); ++l)
    if (int(induction.score[size_t(l)].size()) != roles.n_heads()) return roles;
  roles.induction_measured = true;
  roles.probe_ids = induction.probe_ids;
  roles.probe_seeds = induction.seeds;
  roles.induction_ci95 = induction.ci95;
  roles.options.probe_length = induction.probe_length;
  const int probe_tokens = int(induction.probe_ids.size());
  for (int l = 0; l < roles.n_layers(); ++l) {
    const HeadRoleScores* chance = nullptr;
    if (size_t(l) < roles.chance.size() && size_t(l) < roles.masks.size()) {
      // Induction's chance: uniform attention on the probe under the layer's mask.
      HeadRoleScores& c = roles.chance[size_t(l)];
      c[HeadRole::induction] = uniform_role_scores({}, 0, roles.masks[size_t(l)], {}, -1, roles.options, probe_tokens)[HeadRole::induction];
      chance = &c;
    }
    for (int h = 0; h < roles.n_heads(); ++h) {
      HeadRoleScores& s = roles.scores[size_t(l)][size_t(h)];
      s[HeadRole::induction] = induction.score[size_t(l)][size_t(h)];
      roles.label[size_t(l)][size_t(h)] = strongest_role(s, roles.options.threshold, chance, roles.options.chance_margin);
    }
  }
  return roles;
}

}  // namespace hs
