#include "core/analysis/analysis_cache.h"

#include "core/model/prefix_cache.h"

namespace hs {

std::shared_ptr<const RunAnalysis> AnalysisCache::previous(const PrefixCache* engine) const {
  if (!engine || !previous_ || !engine->run || &previous_->run != engine->run.get()) return nullptr;
  return previous_;
}

void AnalysisCache::keep(std::shared_ptr<const RunAnalysis> a, const PrefixCache& engine) {
  if (engine.run) previous_ = std::move(a);
  else previous_.reset();
}

const RunAnalysis* reusable_rows(const RunAnalysis* prev, const RunAnalysis& a) {
  const int P = a.reused_tokens;
  if (!prev || P < 1 || a.run.compact() || prev->run.compact() || !a.run.info.causal) return nullptr;
  if (P > prev->run.n_tokens() || P > a.run.n_tokens() || prev->run.n_layers() != a.run.n_layers() ||
      prev->run.n_heads() != a.run.n_heads() || prev->row_sums.entropy.size() != size_t(a.run.n_layers()))
    return nullptr;
  if (a.run.n_tokens() <= kRolloutMaxTokens && prev->row_sums.rollout.size() != size_t(a.run.n_layers())) return nullptr;
  return prev;
}

}  // namespace hs
