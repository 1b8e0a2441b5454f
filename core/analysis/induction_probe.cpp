#include "core/analysis/induction_probe.h"

#include <algorithm>

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

InductionScores measure_induction(const ModelRequest& request, const RoleOptions& options, int threads,
                                  CheckpointCache* cache) {
  InductionScores out;
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  const ProbeRun probe = run_induction_probe(*prepared, options, threads);
  if (probe.ids.empty()) return out;
  const int offset = prepared->vocabulary().bos_id >= 0 ? 1 : 0;
  const int n = (int(probe.ids.size()) - offset) / 2;
  out.probe_ids = probe.ids;
  out.probe_length = n;
  for (const LayerMaps& layer : probe.run.attention) {
    std::vector<float> row;
    for (const Map& m : layer) row.push_back(induction_score(m, offset, n));  // m: [P, P] of the probe
    out.score.push_back(std::move(row));
  }
  out.measured = true;
  return out;
}

HeadRoles with_induction(HeadRoles roles, const InductionScores& induction) {
  if (!induction.measured || int(induction.score.size()) != roles.n_layers()) return roles;
  for (int l = 0; l < roles.n_layers(); ++l)
    if (int(induction.score[size_t(l)].size()) != roles.n_heads()) return roles;
  roles.induction_measured = true;
  roles.probe_ids = induction.probe_ids;
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
