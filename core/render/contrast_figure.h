#pragma once
// The Contrast view as a figure (a minimal pair, core/analysis/contrast.h): one head's map for
// sentence A and for sentence B on one colour scale, and B - A over the tokens both have on a
// diverging colour bar (0 white), side by side.
// Laid out for a page (FigureStyle::sized), the lines saying what A and B are (the two sentences;
// two models: their files and the input) go under the maps, and the maps are the first of these
// whose cells are kContrastRowCell points or more (else the one with the largest cells): A, B and
// B - A side by side; the change map (every head's change, layers x heads) beside this head's
// B - A; B - A alone (a paper column).
#include "core/analysis/contrast.h"
#include "core/analysis/run_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/figure.h"
#include "core/render/figure_style.h"

namespace hs {

// The difference's colours (as the app's Contrast view): blue where B looks less, red where more.
constexpr Colormap kContrastColormap = Colormap::rdbu;

// Points: the smallest cell side a page's contrast layout must give its maps to be chosen (a
// 6 pt token label fits two cells of it, rotated, in two lanes).
constexpr double kContrastRowCell = 5.0;

// layer and head must be valid for both runs (the caller checks and names the range).
Figure contrast_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                       const ColourScale& colours, const FigureStyle& style = {});

// Every head's change (mean row total variation, 0 to 1) as a layers x heads table figure on a
// sequential colour bar from 0 (`colormap`).
Figure contrast_change_figure(const ContrastResult& contrast, Colormap colormap, const FigureStyle& style = {});

// What A and B are, one line each: the two sentences, or the two models' files and the input.
std::vector<std::string> contrast_sides(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast);

}  // namespace hs
