#pragma once
// The Query view as a figure: where the chosen query tokens look (their rows summed,
// core/analysis/query_profile.h), one row of bars per head of a layer over the key tokens, as the
// app's Query view draws it: bar height and colour the summed weight (one colour bar for the
// layer), the weight written above a bar when it fits, keys that every chosen query is masked
// from (causal / window) in the masked colour with the legend, the query tokens marked under the
// key axis. Long inputs: one bar per group of keys, the group's largest weight (as the app).
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// layer valid, queries valid token indices, not empty (export checks them). A page size in `style`
// stretches the bars to fill it (text at the style's size).
Figure query_figure(const RunAnalysis& analysis, int layer, const std::vector<int>& queries, Colormap colormap,
                    const FigureStyle& style = {});

}  // namespace hs
