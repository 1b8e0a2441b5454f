#pragma once
// The head-count sweep plot: for every head count that divides d_model, the mean difference
// between heads, the mean row entropy, and the rank of each head's scores and attention map
// (with d_head as the ceiling the score rank cannot pass).
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// `sweep` of `analysis` (available, one point per head count, ascending); line colours come
// from `colormap`. The subtitle says how many seeds each point averages.
// `style` with a page size reflows the three plots for it: text at the style's point size (8 pt
// unless --font-size), the arrangement (3 x 1, 2 x 2 with the legend in the free corner, or
// 1 x 3) that gives the largest plots, plots stretched to fill the page. Also title, font.
// A page too small at the text size: all of it at the 6 pt floor (core/render/figure_text.h);
// InputError naming the page when even that does not fit.
Figure sweep_figure(const RunAnalysis& analysis, const Sweep& sweep, Colormap colormap, const FigureStyle& style = {});

}  // namespace hs
