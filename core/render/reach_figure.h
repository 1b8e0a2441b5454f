#pragma once
// The head-width limit as a figure (the Head width view's maps): every head of a layer as a small
// map, each on its own range, with a strip under its key columns marking the keys some query can
// make its top key (filled) and those no query can (open), titled "h0 · 2 of 11 keys"; with a
// pattern fit (core/analysis/pattern_fit.h) a second row: the target and the closest map of a
// head of each width, titled with the fit's error and marked the same way, and a chart of the
// error per width. The figure refers to `analysis` and `fit`, which must outlive it.
#include <string>

#include "core/analysis/pattern_fit.h"
#include "core/analysis/run_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// analysis.reach must hold `layer` (export checks). fit: null for the heads alone.
Figure reach_figure(const RunAnalysis& analysis, int layer, const PatternFit* fit, const std::string& pattern_title,
                    Colormap colormap, const FigureStyle& style = {});

}  // namespace hs
