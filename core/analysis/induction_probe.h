#pragma once
// The induction probe of the head roles (head_roles.h) on its own, so that it can be measured
// after the rest of the roles: the app skips it while the sentence is typed
// (AnalysisOptions::induction_probe) and measures it when the Head roles view is first shown or
// the roles are exported, once per model (the probe does not depend on the sentence).
#include <vector>

#include "core/analysis/head_roles.h"
#include "core/model/model_request.h"

namespace hs {

class CheckpointCache;

struct InductionScores {
  bool measured = false;          // false: the model runs only its own input (no vocabulary)
  std::vector<int> probe_ids;     // [BOS] r_1..r_n r_1..r_n
  int probe_length = 0;           // n
  std::vector<std::vector<float>> score;  // [layer][head]: the mean over the probes
  int seeds = 0;                          // probes run (RoleOptions::probe_seeds)
  std::vector<std::vector<float>> ci95;   // [layer][head]: half width of the mean's 95% interval
                                          // (Student's t over the probes; empty with one probe)
};

// The probe's length on this model: `wanted` shortened so [BOS] r r fits its positions and r
// draws distinct ids from its vocabulary (below 2: the model cannot run the probe).
int fitted_probe_length(const Prepared::Vocabulary& v, int wanted);

// The probe run on `prepared` at options.probe_length (fitted as above): its ids and maps; no ids
// when the model cannot run it.
struct ProbeRun {
  std::vector<int> ids;
  AttentionRun run;
};
ProbeRun run_induction_probe(const Prepared& prepared, const RoleOptions& options, int threads);

// Induction scores over options.probe_seeds probes (seeds probe_seed, probe_seed + 1, ...) of
// options.probe_length (already fitted) on `prepared`; `first`, when given, is the first seed's
// probe already run. ids: the first probe's.
InductionScores induction_over_seeds(const Prepared& prepared, const RoleOptions& options, int threads,
                                     const ProbeRun* first = nullptr);

// The probe as analyse() runs it (RoleOptions::probe_length, shortened to the model's positions
// and vocabulary; probe_seed), on the request's model. Throws what prepare() throws.
InductionScores measure_induction(const ModelRequest& request, const RoleOptions& options = {}, int threads = 0,
                                  CheckpointCache* cache = nullptr);

// `roles` with the induction scores filled in and every head's label recomputed; unchanged when
// the scores were not measured or are for another shape.
HeadRoles with_induction(HeadRoles roles, const InductionScores& induction);

}  // namespace hs
