#pragma once
// The Head width view as a figure: each head's singular values of its score matrix
// S_h = Q K^T / sqrt(d_head) (core/analysis/spectrum.h), largest first, on a log axis, one line
// per head of a layer, with d_head (the most rank S_h can have) marked; and beside it, for the
// synthetic layer, the head-count sweep plots (core/render/sweep_figure.h), as the app shows both.
#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// analysis.spectrum[layer] must hold every head's singular values (export checks). One line a
// head in the categorical palette (core/render/category_palette.h; `colormap` is not used for
// them). A page size in `style` stretches the chart to it (text at the style's size); a note under
// the axis says what the flat tails are (values under 1e-7 x a head's largest, at that floor).
Figure spectrum_figure(const RunAnalysis& analysis, int layer, Colormap colormap, const FigureStyle& style = {});

// The sweep (when `sweep` is given) left of the singular values (when the analysis has them);
// at least one of them. A page width is shared: 60% the sweep, 40% the chart; a page under 5 in
// wide stacks them (58% of its height the sweep, both at 6 pt), and one too small for both holds
// the sweep alone (Figure::notes says so).
Figure width_figure(const RunAnalysis& analysis, const Sweep* sweep, int layer, Colormap colormap,
                    const FigureStyle& style = {});

// Whether analysis.spectrum holds singular values for every head of `layer`.
bool has_spectrum(const RunAnalysis& analysis, int layer);

}  // namespace hs
