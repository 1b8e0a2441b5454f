#pragma once
// The head-pair table of a layer: an [H, H] heatmap of the head distance (mean over query rows of
// the total variation between the two heads' rows), with the number written in every cell (when
// the cells are big enough to hold it) and a colour bar.
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// layer must be valid (export_view checks it). order: the heads' order along both axes (a
// permutation, e.g. the clustering's leaf order; labels keep the real head index); empty: head order.
// `style`: a page size reflows the table with fixed point-size text, title, labels, font
// (core/render/table_figure.h).
Figure difference_figure(const RunAnalysis& analysis, int layer, Colormap colormap,
                         const std::vector<int>& order = {},
                         const FigureStyle& style = {});

}  // namespace hs
