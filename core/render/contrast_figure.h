#pragma once
// The Contrast view as a figure (a minimal pair, core/analysis/contrast.h): one head's map for
// sentence A and for sentence B on one colour scale, and B - A over the tokens both have on a
// diverging colour bar (0 white), side by side.
#include "core/analysis/contrast.h"
#include "core/analysis/run_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// The difference's colours (as the app's Contrast view): blue where B looks less, red where more.
constexpr Colormap kContrastColormap = Colormap::rdbu;

// layer and head must be valid for both runs (the caller checks and names the range).
Figure contrast_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                       const ColourScale& colours, const FigureStyle& style = {});

}  // namespace hs
