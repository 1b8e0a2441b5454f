#pragma once
// One head role's scores as a layers x heads heatmap (rows: layers L0.., columns: heads h0..),
// scores on a fixed 0 to 1 colour bar, each cell's number written in it when it fits, cells
// without a score (not measured) grey with a dash; the title names the model and the role, the
// caption under the map its definition (core/analysis/head_roles.h).
#include "core/analysis/run_analysis.h"
#include "core/render/colormap.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// analysis.roles must hold scores (RunAnalysis::roles). `style` as for the difference table
// (core/render/table_figure.h).
Figure roles_figure(const RunAnalysis& analysis, HeadRole role, Colormap colormap, const FigureStyle& style = {});

// Every role of every head, as the app's Head roles view lists them: a row per head ("L0 h3 ·
// previous": its label after the dot, none when no role clears the threshold), a column per role,
// scores on the same 0 to 1 colour bar, not measured grey with a dash.
Figure all_roles_figure(const RunAnalysis& analysis, Colormap colormap, const FigureStyle& style = {});

}  // namespace hs
