#pragma once
// Export: one entry point for `headscope-cli export` and the app's "Export...". The output's
// extension picks the format:
//   .png .svg .pdf   the figure of the view (core/render/*_figure.h), drawn by cairo; SVG and
//                    PDF keep text as text and cells as rectangles. Colours follow the view's
//                    ColourScale (linear / log / per-row, first key, colormap) as the screen does
//   .npy .csv        the view's numbers (core/export/export_data.h lists the shapes)
//   .json            the object `headscope-cli maps` writes (every view)
// Files are written atomically: a failure never leaves a partial file. Needs no display.
#include <string>
#include <vector>

#include "core/analysis/run_analysis.h"
#include "core/analysis/sweep_analysis.h"
#include "core/render/colour_scale.h"
#include "core/render/figure_style.h"

namespace hs {

// heatmap: attention maps; difference / distance: the [H, H] head-pair table in that measure
// (core/analysis/run_analysis.h, PairMeasure); sweep: the head-count sweep; roles: one head role's
// scores, [n_layers, n_heads] (core/analysis/head_roles.h); rollout: the attention rollout [T, T]
// (core/analysis/rollout.h); overview: every head of every layer as one layers x heads figure
// (data: as heatmap without a head).
enum class ExportView { heatmap, difference, distance, sweep, roles, rollout, overview };

struct ExportSpec {
  std::string path;
  int layer = 0;
  int head = -1;  // -1: all heads (the grid; .npy [n_layers, n_heads, T, T])
  ExportView view = ExportView::heatmap;
  ColourScale colours;        // the view's colour scale as shown (heatmaps; the other views use its colormap)
  double scale = 1.0;         // figure size multiplier (PNG: 144 dpi at 1)
  int width = 0, height = 0;  // > 0: output size (PNG pixels, SVG/PDF points), figure fitted
  int role = -1;              // roles view: a HeadRole (-1: every role, for export_all only)
  // Figures of the head grid and the head-pair table: each layer's heads in the leaf order of their
  // clustering (core/analysis/head_clustering.h: average linkage on the head distance). Data files
  // keep head order.
  bool cluster_order = false;
  // Page size, fonts, title, labels (core/render/figure_style.h). A page size lays heatmaps out
  // for it (the PNG has page x 2 x scale pixels); the other views are fitted into it.
  FigureStyle style;
};

enum class ExportFormat { png, svg, pdf, npy, csv, json };

// "heatmap", "difference", "distance", "sweep", "roles", "rollout", "overview"; parse throws InputError listing them.
ExportView parse_export_view(const std::string& name);
const char* export_view_name(ExportView view);

// The format from the path's extension (case-insensitive); InputError listing the known ones.
ExportFormat export_format_of(const std::string& path);
const char* export_format_extension(ExportFormat format);  // "png", ...
bool export_format_is_figure(ExportFormat format);

// Every function below exports `analysis` (core/analysis/run_analysis.h) and, for the sweep view,
// `sweep` (the one the app already holds, or null: then it is computed here).

// The bytes export_view would write (for a preview or the clipboard). Throws InputError for
// a layer/head out of range (naming the valid range), a bad size, or a sweep of a run that
// is not synthetic.
std::string export_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec);

// Writes spec.path atomically; IoError when the folder is missing or not writable.
void export_view(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec);

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
                                    const ExportSpec& base, const std::string& extension = "png");

}  // namespace hs
