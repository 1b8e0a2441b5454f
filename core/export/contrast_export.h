#pragma once
// Exporting a minimal pair (core/analysis/contrast.h) or two models on one input
// (model_contrast.h), in the app's Export and in `headscope-cli compare --out FILE`; the extension picks the format:
//   .png .svg .pdf   the Contrast figure of `layer`, `head` (core/render/contrast_figure.h); two
//                    models: the layers x heads change map beside it
//   .json            the alignment, every head's change and both runs' maps (contrast_json.h)
//   .csv             one row per layer and head with its change (tidy)
//   .npy             the change of every head, [n_layers, n_heads] float32
//   .html            the interactive contrast page (core/export/contrast_page.h)
// With a patching result and `patching` set, the figure is the patching figure
// (core/render/patching_figure.h) and the .npy the shares ([n_layers, n_heads], NaN where null);
// the JSON and CSV hold the answer whenever one is given.
// Written atomically.
#include <string>

#include "core/analysis/contrast.h"
#include "core/analysis/model_contrast.h"
#include "core/analysis/pair_target.h"
#include "core/analysis/run_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_style.h"

namespace hs {

struct ContrastExport {
  std::string path;
  int layer = 0, head = 0;  // the figure's head (InputError naming the range when out of it)
  ColourScale colours;      // A and B's colours (the difference has its own diverging scale)
  FigureStyle style;
  double scale = 1.0;
  int width = 0, height = 0;  // > 0: output size (PNG pixels, SVG/PDF points)
  const PairAnswer* answer = nullptr;  // the logit difference (and patching), when asked for
  bool patching = false;               // the figure and .npy show answer->patching
  const ModelComparison* models = nullptr;  // two models on one input (the JSON's "models" mode)
  bool large_page = false;  // .html: write a page past kHtmlPageMaxBytes instead of refusing it
};

std::string contrast_export_bytes(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                                  const ContrastExport& spec);
void export_contrast(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const ContrastExport& spec);

}  // namespace hs
