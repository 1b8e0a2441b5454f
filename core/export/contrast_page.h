#pragma once
// The contrast page (`headscope-cli compare ... --out page.html`): a minimal pair (two sentences,
// one model) or two models on one input, as one self-contained HTML page (core/export/html_page.h):
// the heads table sorted by change, the layers x heads change map, and the selected head's A and B
// on one colour scale (the figure's: the larger of the two maps' tops) and B - A over the paired
// tokens on the red-blue diverging scale symmetric about 0, each map with its own tokens, exactly as
// the Contrast figure (core/render/contrast_figure.h) draws them. Both runs' provenance.
#include <string>

#include "core/analysis/contrast.h"
#include "core/analysis/run_analysis.h"
#include "core/export/contrast_export.h"

namespace hs {

// InputError past kHtmlPageMaxBytes unless spec.large_page (naming the size and the flag).
std::string contrast_page(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                          const ContrastExport& spec);

}  // namespace hs
