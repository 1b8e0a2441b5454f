#pragma once
// Export: one entry point for `headscope-cli export` and the app's "Export...". The output's
// extension picks the format:
//   .png .svg .pdf   the figure of the view (core/render/*_figure.h), drawn by cairo; SVG and
//                    PDF keep text as text and cells as rectangles. Colours follow the view's
//                    ColourScale (linear / log / per-row, first key, colormap) as the screen does
//   .npy .csv        the view's numbers (core/export/export_data.h lists the shapes)
//   .json            the object `headscope-cli maps` writes (every view)
//   .html            one self-contained interactive page of the view (core/export/html_page.h)
// Figures and .json carry the export's provenance (core/export/provenance.h) as metadata.
// Files are written atomically: a failure never leaves a partial file. Needs no display.
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"
#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/export/view_registry.h"
#include "core/render/figure.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_style.h"

namespace hs {

// How a .csv lays out maps: automatic (one map, e.g. --head: the query\key matrix; else tidy),
// tidy (one row per cell with its layer, head, query, key, both tokens and the weight), matrix
// (one query\key table per head of the layer, separated by an empty line: the older layout).
enum class CsvLayout { automatic, tidy, matrix };
CsvLayout parse_csv_layout(const std::string& name);

// Which layers an export holds (the views drawn per layer: heads, query, average, width; and
// every view's .json):
//   unset  (no --layer)     data files every layer (as always), figures `layer`
//   one    (--layer L)      `layer` alone in every format: .npy [1, n_heads, T, T] (heads), the
//                           .json's per-layer arrays that layer only with "layers": [L]
//   every  (--all-layers)   every layer; the heads figure is the overview (every layer x head)
enum class LayerScope { unset, one, every };

struct ExportSpec {
  std::string path;
  int layer = 0;
  int head = -1;  // -1: all heads (the grid; .npy [n_layers, n_heads, T, T])
  View view = View::heatmap;  // core/export/view_registry.h
  ColourScale colours;        // the view's colour scale as shown (heatmaps; the other views use its colormap)
  double scale = 1.0;         // figure size multiplier (PNG: 144 dpi at 1)
  int width = 0, height = 0;  // > 0: output size (PNG pixels, SVG/PDF points), figure fitted
  int role = -1;              // roles view: a HeadRole (-1: every role)
  LayerScope layers = LayerScope::unset;
  CsvLayout csv_layout = CsvLayout::automatic;
  std::vector<int> queries;   // query view: the query tokens whose rows are summed (empty: the last token)
  AblationMode ablation_mode = AblationMode::zero;  // ablation view
  // Width view: the pattern the fit draws (core/analysis/target_pattern.h); "" the previous token
  // when the sentence fits the fit (pattern_fit.h: kFitMaxTokens), "none" no fit.
  std::string pattern;
  std::vector<int> fit_widths;  // the head widths fitted (empty: 1, 2, 4, ... T - 1; pattern_fit.h)
  // Figures of the head grid and the head-pair table: each layer's heads in the leaf order of their
  // clustering (core/analysis/head_clustering.h: average linkage on the head distance). Data files
  // keep head order.
  bool cluster_order = false;
  // Page size, fonts, title, labels (core/render/figure_style.h). A page size lays heatmaps out
  // for it (the PNG has page x 2 x scale pixels); the other views are fitted into it.
  FigureStyle style;
  // Out, when set: what a figure's layout could not do as asked (labels thinned), one line each,
  // for the CLI's stderr and the app's status line.
  std::vector<std::string>* notes = nullptr;
  // .html: write a page past kHtmlPageMaxBytes (core/export/html_page.h) instead of refusing it.
  bool large_page = false;
};

enum class ExportFormat { png, svg, pdf, npy, csv, json, html };

// The formats, one row each: the extension picks the format.
struct ExportFormatInfo {
  ExportFormat format;
  const char* extension;  // "png", ...
  bool figure;            // a picture (png, svg, pdf), else numbers (or the interactive page, html)
};
const std::vector<ExportFormatInfo>& export_formats();

// The format from the path's extension (case-insensitive); InputError listing the known ones.
ExportFormat export_format_of(const std::string& path);
const char* export_format_extension(ExportFormat format);  // "png", ...
bool export_format_is_figure(ExportFormat format);

// One export as the registry's writers see it (core/export/view_registry.cpp): the analysis (with
// the caller's sweep and ablation, or null: then a writer that needs one computes it), the spec,
// for figures the format and size, for data files the layers written.
struct ViewExport {
  const RunAnalysis& analysis;
  const Sweep* sweep;
  const HeadAblation* ablation;
  const ExportSpec& spec;
  FigureFormat format = FigureFormat::png;
  FigureSize size;
  std::vector<int> layers;

  // The figure's bytes in `format` at `size`; the layout's notes go to spec.notes.
  std::string render(const Figure& figure) const;
  // The head shown: spec.head for one head (ViewScope::head: at least 0), -1 for every head of the layer.
  int head() const;
};

// Every function below exports `analysis` (core/analysis/run_analysis.h) and, for the sweep and
// width views, `sweep` (the one the app already holds, or null: then it is computed here), for the
// ablation view `ablation` (the app's, or null: computed here with spec.ablation_mode; InputError for
// a model without a next-token loss, e.g. the synthetic layer).

// The bytes export_view would write (for a preview or the clipboard). Throws InputError for
// a layer/head out of range (naming the valid range), a bad size, or a sweep of a run that
// is not synthetic.
std::string export_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                         const HeadAblation* ablation = nullptr);

// Writes spec.path atomically; IoError when the folder is missing or not writable.
void export_view(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                 const HeadAblation* ablation = nullptr);

// Batch export into `dir` (created if missing), in the format `extension` ("png", "svg", ...):
//   heatmap:    one file per head of every layer, layer{L}_head{H}.{ext}
//   difference: one file per layer, layer{L}_difference.{ext} (distance: layer{L}_distance.{ext})
//   sweep:      sweep.{ext}
//   roles:      roles_{role}.{ext}, every role (or base.role alone)
//   rollout:    rollout.{ext}
//   overview:   overview.{ext}
//   json:       maps.json (the whole run is one object)
// `base` gives the view, colours and size. Returns the paths written, in order.
std::vector<std::string> export_all(const RunAnalysis& analysis, const Sweep* sweep, const std::string& dir,
                                    const ExportSpec& base, const std::string& extension = "png",
                                    const HeadAblation* ablation = nullptr);

}  // namespace hs
