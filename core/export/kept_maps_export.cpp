#include "core/export/kept_maps_export.h"

#include "core/formats/npy.h"

namespace hs {
namespace {

// The heads of spec.layer the export holds: spec.head alone, or every head.
bool kept_heads_cover(const AttentionRun& run, const ExportSpec& spec) {
  if (spec.layer < 0 || spec.layer >= int(run.kept.size())) return false;
  const LayerMaps& maps = run.kept[size_t(spec.layer)];
  const int T = run.n_tokens();
  for (int h = 0; h < int(maps.size()); ++h) {
    if (spec.head >= 0 && h != spec.head) continue;
    if (!run.kept_maps.keeps(spec.layer, h) || maps[size_t(h)].rows() != T || maps[size_t(h)].cols() != T) return false;
  }
  return spec.head < int(maps.size());
}

}  // namespace

bool exports_kept_maps(const RunAnalysis& analysis, const ExportSpec& spec) {
  const View v = spec.view;
  if (!analysis.run.compact() || (v != View::heads && v != View::head && v != View::heatmap)) return false;
  if (spec.layers == LayerScope::every || (spec.layers == LayerScope::unset && spec.head < 0)) return false;
  return export_format_of(spec.path) == ExportFormat::npy && kept_heads_cover(analysis.run, spec);
}

void write_kept_maps_npy(std::ostream& out, const AttentionRun& run, const ExportSpec& spec) {
  const int64_t T = run.n_tokens();
  const LayerMaps& maps = run.kept[size_t(spec.layer)];  // [H] -> [T, T], row-major
  if (spec.head >= 0) {
    out << npy_header({T, T});
    const Map& a = maps[size_t(spec.head)];
    out.write(reinterpret_cast<const char*>(a.data()), std::streamsize(a.size() * int64_t(sizeof(float))));
    return;
  }
  out << npy_header({1, int64_t(maps.size()), T, T});  // C order: head, then the row-major map
  for (const Map& a : maps) out.write(reinterpret_cast<const char*>(a.data()), std::streamsize(a.size() * int64_t(sizeof(float))));
}

}  // namespace hs
