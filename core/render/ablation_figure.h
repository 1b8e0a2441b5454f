#pragma once
// The Ablation view as a figure: the change in the mean next-token loss with each head knocked
// out (core/analysis/head_ablation.h), a layers x heads heatmap on a diverging colour bar with 0
// in the middle (red: the loss rises without the head, it helps; blue: it falls), each cell's
// number written in it when it fits, heads not run grey; the caption gives the intact loss.
#include "core/analysis/head_ablation.h"
#include "core/analysis/run_analysis.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// The app's Ablation colours (a diverging map, red for a positive change).
constexpr Colormap kAblationColormap = Colormap::rdbu;

Figure ablation_figure(const RunAnalysis& analysis, const HeadAblation& ablation, const FigureStyle& style = {});

}  // namespace hs
