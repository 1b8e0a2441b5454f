#include "core/export/contrast_export.h"

#include <sstream>

#include "core/export/contrast_json.h"
#include "core/export/export.h"
#include "core/export/export_data.h"
#include "core/render/contrast_figure.h"
#include "core/render/figure.h"
#include "core/render/patching_figure.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

void check_head(const AttentionRun& run, int layer, int head) {
  if (layer < 0 || layer >= run.n_layers())
    throw InputError("layer " + std::to_string(layer) + " does not exist (0 to " + std::to_string(run.n_layers() - 1) + ")");
  if (head < 0 || head >= run.n_heads())
    throw InputError("head " + std::to_string(head) + " does not exist (0 to " + std::to_string(run.n_heads() - 1) + ")");
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
      check_head(a.run, spec.layer, spec.head);
      return render_figure(contrast_figure(a, b, contrast, spec.layer, spec.head, spec.colours, spec.style), f, size);
    }
    case ExportFormat::json: write_contrast_json(out, a, b, contrast, spec.answer); return out.str();
    case ExportFormat::csv: write_contrast_csv(out, contrast, patching); return out.str();
    case ExportFormat::npy: return map_npy(spec.patching ? patching->share : contrast.distance_grid());
    case ExportFormat::html:
      throw InputError("the contrast view has no .html page yet; its figure (.png .svg .pdf) and numbers (.npy .csv .json) "
                       "are written; export --view V --out page.html writes the page of the other views");
  }
  return {};
}

void export_contrast(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const ContrastExport& spec) {
  write_file_atomic(spec.path, contrast_export_bytes(a, b, contrast, spec));
}

}  // namespace hs
