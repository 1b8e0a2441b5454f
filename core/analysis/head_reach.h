#pragma once
// What a head's width lets it do, per head of a run (docs/analysis.md, "Head width"):
//   reachable keys  the keys some query can make its top key (reachable_keys.h): 2 at width 1
//   rows that agree the query rows that rank their visible keys as the last query ranks them, or
//                   exactly reversed: every row at width 1, where q_i . k_j = q_i k_j orders the
//                   keys by k_j for every query (reversed when q_i < 0): the column stripes
// Both need the q and k the layer used (AttentionRun::queries / keys, kept with the scores).
#include <vector>

#include "core/model/model_run.h"

namespace hs {

struct HeadReach {
  // Sorted indices over all T keys, ignoring the mask; query heads sharing a key/value head have
  // the same list.
  std::vector<int> reachable_keys;
  // Rows with at least 3 visible keys (fewer cannot rank them in any way but the same or the
  // reverse), and those of them that rank their visible keys as the last query does (by
  // q_{T-1} . k_j over every key, the mask ignored) or in exactly the reverse order. Ties (within
  // 1e-6 of a row's largest score) are neither order.
  int ranked_rows = 0;
  int agreeing_rows = 0;

  // Share of ranked rows that agree; NaN when no row has 3 visible keys.
  float agreeing_share() const;
};

// Rows that agree for one head: scores [T, T] = q_h k_g^T before the mask; visible [T, T] the
// masked scores (-inf where the mask hides a key). Fills ranked_rows and agreeing_rows.
void count_agreeing_rows(const Map& scores, const Map& visible, HeadReach& out);

// Reachable keys are computed while (layers x key/value heads) x T^2 x (d_head + 1)^2, the most
// their linear programs can take, stays under kReachBudget.
constexpr double kReachBudget = 4e9;
bool reach_fits(const ModelInfo& info, int64_t tokens);

// Every head of every layer of `run`: [layer][head]; empty when the run kept no q, k and scores
// (RunOptions::keep_scores).
std::vector<std::vector<HeadReach>> head_reach(const AttentionRun& run, int threads = 0);

}  // namespace hs
