#include "core/analysis/induction_probe.h"

#include <algorithm>

namespace hs {

InductionScores measure_induction(const ModelRequest& request, const RoleOptions& options, int threads,
                                  CheckpointCache* cache) {
  InductionScores out;
  const std::unique_ptr<Prepared> prepared = prepare(request, cache);
  const Prepared::Vocabulary v = prepared->vocabulary();
  const int offset = v.bos_id >= 0 ? 1 : 0;
  const int n = std::min({options.probe_length, (v.max_tokens - offset) / 2, v.size - offset});
  if (v.size <= 0 || n < 2) return out;
  out.probe_ids = induction_probe_ids(v.size, v.bos_id, n, options.probe_seed);
  out.probe_length = n;
  RunOptions ro;
  ro.threads = threads;
  const AttentionRun probe = prepared->run_ids(out.probe_ids, ro);
  for (const LayerMaps& layer : probe.attention) {
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
  for (int l = 0; l < roles.n_layers(); ++l)
    for (int h = 0; h < roles.n_heads(); ++h) {
      HeadRoleScores& s = roles.scores[size_t(l)][size_t(h)];
      s[HeadRole::induction] = induction.score[size_t(l)][size_t(h)];
      roles.label[size_t(l)][size_t(h)] = strongest_role(s, roles.options.threshold);
    }
  return roles;
}

}  // namespace hs
