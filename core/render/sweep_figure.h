#pragma once
// The head-count sweep plot: for every head count that divides d_model, the mean difference
// between heads, the mean row entropy, and the rank of each head's scores and attention map
// (with d_head as the ceiling the score rank cannot pass).
#include <vector>

#include "core/analysis/head_sweep.h"
#include "core/model/model_run.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"

namespace hs {

// `points` from head_count_sweep (one per head count, ascending); line colours come from
// `colormap`. `seeds`: how many seeds each point averages (shown in the subtitle).
Figure sweep_figure(const AttentionRun& run, const std::vector<SweepPoint>& points, int seeds, Colormap colormap);

}  // namespace hs
