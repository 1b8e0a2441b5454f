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
#include "core/render/figure_style.h"
#include "core/render/map_mask.h"

namespace hs {

// What a caller may change beyond the style: the grid's panel order (a permutation of the layer's
// heads, e.g. the clustering's leaf order; panels keep their real head index), the title and the
// colour bar's title (a FigureStyle's title / colorbar_label still win over these).
struct HeatmapFigureExtras {
  std::vector<int> order;  // empty: head order
  std::string title;       // empty: "model · layer L · head(s)"
  std::string bar_title;   // empty: "attention weight"
  // The maps' mask when they are not the run's own heads (the rollout drawn as a one-map run):
  // null, the layer's (core/render/map_mask.h).
  const MapMask* mask = nullptr;
};

// head >= 0: that head alone; head < 0: every head of the layer as a grid.
// layer and head must be valid (export_view checks them and says the valid range).
// `style` lays it out for a page size, sets fonts, title, labels (core/render/figure_style.h).
// Cells a causal or window mask hides are drawn in the colormap's masked colour, with a legend.
Figure heatmap_figure(const RunAnalysis& analysis, int layer, int head, const ColourScale& colours,
                      const FigureStyle& style = {}, const HeatmapFigureExtras& extras = {});

// Every head of every layer: a layers x heads grid of maps ("layer l" left of each row, "head h"
// above each column) sharing one colour bar (per map with colours.per_map).
Figure overview_figure(const RunAnalysis& analysis, const ColourScale& colours, const FigureStyle& style = {});

// "stories260K", or the model kind when it has no name.
std::string figure_model_name(const AttentionRun& run);

}  // namespace hs
