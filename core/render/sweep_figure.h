#pragma once
// The head-count sweep plot: for every head count that divides d_model, the mean difference
// between heads, the mean row entropy, and the rank of each head's scores and attention map
// (with d_head as the ceiling the score rank cannot pass).
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"

namespace hs {

// `sweep` of `analysis` (available, one point per head count, ascending); line colours come
// from `colormap`. The subtitle says how many seeds each point averages.
Figure sweep_figure(const RunAnalysis& analysis, const Sweep& sweep, Colormap colormap);

}  // namespace hs
