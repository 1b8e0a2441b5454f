#pragma once
// Activation patching as a figure (core/analysis/activation_patching.h): the share of the logit
// difference gap each head restores, a layers x heads table on a diverging colour bar with 0 in the
// middle (red: patching the head moves B toward A; blue: away), each cell's number written in it
// when it fits, null shares grey; the caption gives LD after A and after B and what was patched.
#include "core/analysis/pair_target.h"
#include "core/analysis/run_analysis.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// The Contrast view's patching colours (a diverging map, red for a positive share).
constexpr Colormap kPatchingColormap = Colormap::rdbu;

// The colour bar's half range: 1 (the whole gap), or the largest |share| past it.
float patching_range(const Map& share);

// answer.patching must be set.
Figure patching_figure(const RunAnalysis& a, const PairAnswer& answer, const FigureStyle& style = {});

}  // namespace hs
