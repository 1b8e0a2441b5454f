#include "core/export/export.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "core/export/block_maxima_export.h"
#include "core/export/kept_maps_export.h"
#include "core/export/provenance.h"
#include "core/export/view_data.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"
#include "core/util/suggest.h"

namespace hs {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string range(int n) { return n > 0 ? "0 to " + std::to_string(n - 1) : "none"; }

// ".png, .svg, .pdf, .npy, .csv or .json"
std::string known_extensions() {
  std::vector<std::string> names;
  for (const ExportFormatInfo& f : export_formats()) names.push_back(std::string(".") + f.extension);
  return or_list(names);
}

// Long-input mode keeps block maxima, not whole maps: the views that read maps (and every view's
// .json) export them (block_maxima_export.h); the query view reads the run's exact rows
// (query_profile.h); the other views need whole maps.
bool exports_block_maxima(const ExportSpec& spec, bool json) {
  return json || view_descriptor(spec.view).maps == ViewMaps::block_maxima;
}

bool reads_exact_rows(const ExportSpec& spec) { return view_descriptor(spec.view).maps == ViewMaps::exact_rows; }

// "the heads, head, heatmap and overview views (and .json) export the block maxima, the query view the exact rows"
std::string long_input_views() {
  std::vector<std::string> blocks, rows;
  for (const ViewDescriptor& v : all_views()) {
    if (v.maps == ViewMaps::block_maxima) blocks.emplace_back(v.name);
    if (v.maps == ViewMaps::exact_rows) rows.emplace_back(v.name);
  }
  std::string both = or_list(blocks);
  if (const size_t last = both.rfind(" or "); last != std::string::npos) both.replace(last, 4, " and ");
  return "the " + both + " views (and .json) export the block maxima, the " + or_list(rows) + " view the exact rows";
}

void check_layer_head(const RunAnalysis& analysis, const ExportSpec& spec, bool json) {
  const AttentionRun& run = analysis.run;
  if (run.compact() && !exports_block_maxima(spec, json) && !reads_exact_rows(spec)) {
    throw InputError(std::string("the ") + view_name(spec.view) +
                     " view needs whole T x T maps, and this run keeps only block maxima (long-input mode: " +
                     analysis.long_input_reason + "); " + long_input_views() +
                     "; headscope-cli export --whole-maps keeps whole maps, or shorten the input");
  }
  const int L = run.n_layers(), H = run.n_heads();
  if (L == 0 || H == 0 || run.n_tokens() == 0) throw InputError("nothing to export: the run has no attention maps");
  if (spec.layer < 0 || spec.layer >= L) {
    throw InputError("layer " + std::to_string(spec.layer) + " is out of range: the model has " + std::to_string(L) +
                     (L == 1 ? " layer" : " layers") + " (valid: " + range(L) + ")");
  }
  if (spec.head < -1 || spec.head >= H) {
    throw InputError("head " + std::to_string(spec.head) + " is out of range: layer " + std::to_string(spec.layer) +
                     " has " + std::to_string(H) + (H == 1 ? " head" : " heads") + " (valid: " + range(H) +
                     "; leave --head out for all heads)");
  }
}

FigureFormat figure_format(ExportFormat f) {
  return f == ExportFormat::svg ? FigureFormat::svg : f == ExportFormat::pdf ? FigureFormat::pdf : FigureFormat::png;
}

// The view's writer for `format`; InputError when the view has none.
ViewWriter writer_of(const ViewDescriptor& v, ExportFormat format) {
  ViewWriter w = export_format_is_figure(format) ? v.figure
                 : format == ExportFormat::npy   ? v.npy
                 : format == ExportFormat::csv   ? v.csv
                 : format == ExportFormat::html  ? v.html
                                                 : v.json;
  if (w) return w;
  if (v.view == View::contrast) {
    throw InputError("the contrast view compares two runs: headscope-cli compare --sentence A --contrast B --out FILE writes it");
  }
  if (format == ExportFormat::html) {
    throw InputError(std::string("the ") + v.name + " view has no .html page; the views with one: " + html_view_names());
  }
  throw InputError(std::string("the ") + v.name + " view has no ." + export_format_extension(format) + " export");
}

std::string view_bytes(const RunAnalysis& analysis, const Sweep* sweep, const HeadAblation* ablation,
                       const ExportSpec& spec, ExportFormat format) {
  FigureSize size;
  size.scale = spec.scale;
  size.width = spec.width;
  size.height = spec.height;
  if (format == ExportFormat::pdf) size.pdf_subject = provenance_json(analysis, spec);
  const ViewExport in{analysis, sweep, ablation, spec, figure_format(format), size,
                      exported_layers(analysis.run.n_layers(), spec.layers != LayerScope::one, spec.layer)};
  return writer_of(view_descriptor(spec.view), format)(in);
}

}  // namespace

CsvLayout parse_csv_layout(const std::string& name) {
  if (name == "auto") return CsvLayout::automatic;
  if (name == "tidy") return CsvLayout::tidy;
  if (name == "matrix") return CsvLayout::matrix;
  throw InputError("--csv-layout '" + name + "' is not a layout; expected auto, tidy or matrix");
}

const std::vector<ExportFormatInfo>& export_formats() {
  static const std::vector<ExportFormatInfo> formats = {
      {ExportFormat::png, "png", true},  {ExportFormat::svg, "svg", true},  {ExportFormat::pdf, "pdf", true},
      {ExportFormat::npy, "npy", false}, {ExportFormat::csv, "csv", false}, {ExportFormat::json, "json", false},
      {ExportFormat::html, "html", false},
  };
  return formats;
}

const char* export_format_extension(ExportFormat format) { return export_formats()[size_t(format)].extension; }

bool export_format_is_figure(ExportFormat format) { return export_formats()[size_t(format)].figure; }

ExportFormat export_format_of(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  for (const ExportFormatInfo& f : export_formats())
    if (ext == std::string(".") + f.extension) return f.format;
  if (ext.empty()) throw InputError("'" + path + "' has no extension; expected " + known_extensions());
  throw InputError("unknown export format '" + ext + "' ('" + path + "'); expected " + known_extensions());
}

namespace {

// PNG and SVG carry the provenance (core/export/provenance.h); the PDF's is set as it is rendered
// (view_bytes), the .json's is written with it (maps_json.h), a page holds its own, .npy and .csv
// stay plain.
std::string export_with_provenance(std::string bytes, const RunAnalysis& analysis, const ExportSpec& spec, ExportFormat format) {
  switch (format) {
    case ExportFormat::png: return png_with_provenance(bytes, provenance_json(analysis, spec));
    case ExportFormat::svg: return svg_with_provenance(bytes, provenance_json(analysis, spec));
    default: return bytes;
  }
}

std::string export_bytes_plain(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                               const HeadAblation* ablation) {
  const ExportFormat format = export_format_of(spec.path);
  const bool json = format == ExportFormat::json;
  check_layer_head(analysis, spec, json);
  if (analysis.run.compact() && !json && !reads_exact_rows(spec)) {
    // Long-input mode: the block maxima as maps of their own, labelled (block_maxima_export.h).
    const RunAnalysis blocks = block_maxima_run(analysis);
    const std::string label = block_maxima_label(analysis.run);
    if (export_format_is_figure(format)) {
      ExportSpec labelled = spec;
      if (!labelled.style.colorbar_label) labelled.style.colorbar_label = label;
      return view_bytes(blocks, sweep, ablation, labelled, format);
    }
    const std::string data = view_bytes(blocks, sweep, ablation, spec, format);
    return format == ExportFormat::csv ? "# " + label + " (long-input mode: " + analysis.long_input_reason + ")\n" + data
                                       : data;
  }
  return view_bytes(analysis, sweep, ablation, spec, format);
}

}  // namespace

std::string export_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                         const HeadAblation* ablation) {
  const ExportFormat format = export_format_of(spec.path);
  if (exports_kept_maps(analysis, spec)) {
    std::ostringstream out;
    write_kept_maps_npy(out, analysis.run, spec);
    return out.str();
  }
  return export_with_provenance(export_bytes_plain(analysis, sweep, spec, ablation), analysis, spec, format);
}

void export_view(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec, const HeadAblation* ablation) {
  if (spec.path.empty()) throw InputError("no output file: give --out FILE (or --out-dir DIR)");
  if (exports_kept_maps(analysis, spec)) {
    // The maps the long-input run kept whole, streamed from memory to the file (no second copy).
    write_file_atomic(spec.path, [&](std::ostream& out) { write_kept_maps_npy(out, analysis.run, spec); });
    return;
  }
  const std::string bytes = export_bytes(analysis, sweep, spec, ablation);
  if (analysis.run.compact() && export_format_of(spec.path) == ExportFormat::npy) {
    // An .npy holds no label: the sidecar says these are block maxima and of how many cells.
    write_file_atomic(block_maxima_sidecar_path(spec.path), block_maxima_sidecar_json(analysis));
  }
  write_file_atomic(spec.path, bytes);
}

std::vector<std::string> export_all(const RunAnalysis& analysis, const Sweep* sweep, const std::string& dir,
                                    const ExportSpec& base, const std::string& extension, const HeadAblation* ablation) {
  const AttentionRun& run = analysis.run;
  std::string ext = lower(extension);
  if (!ext.empty() && ext[0] == '.') ext.erase(0, 1);
  const ExportFormat format = export_format_of("x." + ext);
  if (dir.empty()) throw InputError("no output folder: give --out-dir DIR");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw IoError("cannot create the folder " + dir + ": " + ec.message());

  const std::filesystem::path folder(dir);
  auto target = [&](const std::string& stem) { return (folder / (stem + "." + ext)).string(); };
  std::vector<std::string> written;
  auto write = [&](ExportSpec spec, const std::string& path) {
    spec.path = path;
    export_view(analysis, sweep, spec, ablation);
    written.push_back(path);
  };
  ExportSpec spec = base;
  spec.layer = 0;
  spec.head = -1;
  spec.layers = LayerScope::one;  // a file per layer holds that layer
  check_layer_head(analysis, spec, format == ExportFormat::json);
  const ViewDescriptor& v = view_descriptor(base.view);
  if (format == ExportFormat::json) {
    spec.layers = LayerScope::unset;
    write(spec, target("maps"));
  } else if (v.view == View::roles) {
    for (int r = 0; r < kHeadRoleCount; ++r) {
      if (base.role >= 0 && r != base.role) continue;
      spec.role = r;
      write(spec, target(std::string("roles_") + head_role_name(HeadRole(r))));
    }
  } else if (v.scope == ViewScope::model) {
    write(spec, target(v.file_stem));
  } else if (v.scope == ViewScope::head || v.scope == ViewScope::head_or_layer) {
    spec.layers = LayerScope::unset;  // one head: [T, T] as always
    for (int l = 0; l < run.n_layers(); ++l) {
      for (int h = 0; h < run.n_heads(); ++h) {
        spec.layer = l;
        spec.head = h;
        write(spec, target("layer" + std::to_string(l) + "_head" + std::to_string(h)));
      }
    }
  } else {  // a file per layer
    for (int l = 0; l < run.n_layers(); ++l) {
      spec.layer = l;
      write(spec, target("layer" + std::to_string(l) + "_" + v.file_stem));
    }
  }
  return written;
}

}  // namespace hs
