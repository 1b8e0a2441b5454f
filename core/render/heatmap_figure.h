#pragma once
// The attention figures: one head's [T, T] map, or the grid of every head of a layer sharing
// one colour scale; token labels on both axes, a title naming model, layer and head(s), and a
// colour bar. Colours follow the view's ColourScale exactly as the app's screen does
// (core/render/colour_scale.h). The figure refers to `analysis`, which must outlive it.
#include <string>
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/figure.h"

namespace hs {

// What a caller may change: the grid's panel order (a permutation of the layer's heads, e.g. the
// clustering's leaf order; panels keep their real head index), the title and the colour bar's title.
struct HeatmapFigureExtras {
  std::vector<int> order;  // empty: head order
  std::string title;       // empty: "model · layer L · head(s)"
  std::string bar_title;   // empty: "attention weight"
};

// head >= 0: that head alone; head < 0: every head of the layer as a grid.
// layer and head must be valid (export_view checks them and says the valid range).
Figure heatmap_figure(const RunAnalysis& analysis, int layer, int head, const ColourScale& colours,
                      const HeatmapFigureExtras& extras = {});

// "stories260K", or the model kind when it has no name.
std::string figure_model_name(const AttentionRun& run);

}  // namespace hs
