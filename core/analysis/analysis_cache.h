#pragma once
// Live typing, the analysis side: the previous analysis, kept by the app's worker beside the
// engine's PrefixCache (core/model/prefix_cache.h). When the engine reused the first P tokens of
// the run that analysis holds, the next analysis reuses its per-row sums (RunAnalysis::row_sums)
// for rows 0 .. P-1 and computes only rows P .. T-1.
#include <memory>

#include "core/analysis/run_analysis.h"

namespace hs {

struct PrefixCache;

class AnalysisCache {
 public:
  // The kept analysis when `engine` (null: no live typing) still holds its run, else null.
  std::shared_ptr<const RunAnalysis> previous(const PrefixCache* engine) const;
  // After an analysis: keeps `a` when the engine kept its run (PrefixCache::keep), else nothing.
  void keep(std::shared_ptr<const RunAnalysis> a, const PrefixCache& engine);
  void clear() { previous_.reset(); }

 private:
  std::shared_ptr<const RunAnalysis> previous_;  // holds the run PrefixCache::run points into
};

// `prev` when the run of `a` took its first P = a.reused_tokens >= 1 rows from prev's run and both
// have whole maps of the same shape with the row sums a reuse needs; else null (a whole derive).
const RunAnalysis* reusable_rows(const RunAnalysis* prev, const RunAnalysis& a);

}  // namespace hs
