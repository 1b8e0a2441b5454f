#include "core/export/contrast_export.h"

#include <sstream>

#include "core/export/contrast_json.h"
#include "core/export/contrast_page.h"
#include "core/export/export.h"
#include "core/export/export_data.h"
#include "core/render/contrast_figure.h"
#include "core/render/figure.h"
#include "core/render/patching_figure.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// The heads compared: both runs' (two models: the ones both have).
void check_head(const ContrastResult& contrast, int layer, int head) {
  const int layers = int(contrast.heads.size()), heads = layers > 0 ? int(contrast.heads[0].size()) : 0;
  const std::string shared = contrast.models ? " of those both models have" : "";
  if (layer < 0 || layer >= layers)
    throw InputError("layer " + std::to_string(layer) + " does not exist (0 to " + std::to_string(layers - 1) + shared + ")");
  if (head < 0 || head >= heads)
    throw InputError("head " + std::to_string(head) + " does not exist (0 to " + std::to_string(heads - 1) + shared + ")");
}

// Two models: the layers x heads change map beside the chosen head's A, B and B - A. A page of a
// fixed size lays the figure out itself (contrast_figure.h: the three maps, or on a column the
// change map beside B - A).
Figure model_pair_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const ContrastExport& spec) {
  const Figure maps = contrast_figure(a, b, contrast, spec.layer, spec.head, spec.colours, spec.style);
  if (spec.style.sized()) return maps;
  return figures_side_by_side({contrast_change_figure(contrast, spec.colours.colormap, spec.style), maps}, 18.0);
}

}  // namespace

std::string contrast_export_bytes(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                                  const ContrastExport& spec) {
  const ExportFormat format = export_format_of(spec.path);
  const HeadPatching* patching = spec.answer ? spec.answer->patching.get() : nullptr;
  if (spec.patching && !patching) throw InputError("there is no patching result to export (run the patching first)");
  std::ostringstream out;
  switch (format) {
    case ExportFormat::png:
    case ExportFormat::svg:
    case ExportFormat::pdf: {
      FigureSize size;
      size.scale = spec.scale;
      size.width = spec.width;
      size.height = spec.height;
      const FigureFormat f = format == ExportFormat::svg ? FigureFormat::svg : format == ExportFormat::pdf ? FigureFormat::pdf : FigureFormat::png;
      if (spec.patching) return render_figure(patching_figure(a, *spec.answer, spec.style), f, size);
      check_head(contrast, spec.layer, spec.head);
      if (contrast.models) return render_figure(model_pair_figure(a, b, contrast, spec), f, size);
      return render_figure(contrast_figure(a, b, contrast, spec.layer, spec.head, spec.colours, spec.style), f, size);
    }
    case ExportFormat::json: write_contrast_json(out, a, b, contrast, spec.answer, spec.models); return out.str();
    case ExportFormat::csv: write_contrast_csv(out, contrast, patching); return out.str();
    case ExportFormat::npy: return map_npy(spec.patching ? patching->share : contrast.distance_grid());
    case ExportFormat::html:
      if (spec.patching)
        throw InputError("the patching result has no .html page: write its figure (.png .svg .pdf) or numbers (.npy .csv .json), "
                         "or leave out --patch for the contrast page");
      check_head(contrast, spec.layer, spec.head);
      return contrast_page(a, b, contrast, spec);
  }
  return {};
}

void export_contrast(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const ContrastExport& spec) {
  write_file_atomic(spec.path, contrast_export_bytes(a, b, contrast, spec));
}

}  // namespace hs
