#include "core/export/export.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <system_error>

#include "core/analysis/head_clustering.h"
#include "core/export/block_maxima_export.h"
#include "core/export/export_data.h"
#include "core/export/maps_json.h"
#include "core/render/difference_figure.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "core/render/roles_figure.h"
#include "core/render/shown_map.h"
#include "core/render/sweep_figure.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs {
namespace {

constexpr ExportFormat kFormats[] = {ExportFormat::png, ExportFormat::svg, ExportFormat::pdf,
                                     ExportFormat::npy, ExportFormat::csv, ExportFormat::json};
constexpr const char* kKnownExtensions = ".png, .svg, .pdf, .npy, .csv or .json";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string range(int n) { return n > 0 ? "0 to " + std::to_string(n - 1) : "none"; }

// Long-input mode keeps block maxima, not whole maps: the heatmap and overview views (and every
// view's .json) export them (block_maxima_export.h); the other views need whole maps.
bool exports_block_maxima(const ExportSpec& spec, bool json) {
  return json || spec.view == ExportView::heatmap || spec.view == ExportView::overview;
}

void check_layer_head(const RunAnalysis& analysis, const ExportSpec& spec, bool json) {
  const AttentionRun& run = analysis.run;
  if (run.compact() && !exports_block_maxima(spec, json)) {
    throw InputError(std::string("the ") + export_view_name(spec.view) +
                     " view needs whole T x T maps, and this run keeps only block maxima (long-input mode: " +
                     analysis.long_input_reason +
                     "); the heatmap and overview views (and .json) export the block maxima; headscope-cli export "
                     "--whole-maps keeps whole maps, or shorten the input");
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

// The sweep to export: the caller's (not owned: the aliasing constructor with an empty owner), or
// computed now. InputError, with the sweep's note, when it cannot run for this analysis.
std::shared_ptr<const Sweep> sweep_for(const RunAnalysis& analysis, const Sweep* sweep) {
  std::shared_ptr<const Sweep> s = sweep ? std::shared_ptr<const Sweep>(std::shared_ptr<const Sweep>(), sweep)
                                         : analyse_sweep(analysis.request, analysis.run.tokens);
  if (!s->available) throw InputError(s->note.empty() ? "the head-count sweep is not available for this run" : s->note);
  return s;
}

// The roles view needs one role; rollout a computed rollout.
void check_view(const RunAnalysis& analysis, const ExportSpec& spec) {
  if (spec.view == ExportView::roles) {
    const bool all_roles_data = spec.role == -1 && !export_format_is_figure(export_format_of(spec.path));
    if (!all_roles_data && (spec.role < 0 || spec.role >= kHeadRoleCount)) {
      std::string all;
      for (int r = 0; r < kHeadRoleCount; ++r) all += std::string(r ? ", " : "") + head_role_name(HeadRole(r));
      throw InputError("a roles figure shows one role: give --role (" + all + "); every role at once is data (.npy, .csv, .json)");
    }
    if (analysis.roles.empty()) throw InputError("this run has no head role scores");
  }
  if (spec.view == ExportView::rollout && analysis.rollout.size() == 0) {
    throw InputError("the attention rollout is computed for up to " + std::to_string(kRolloutMaxTokens) +
                     " tokens; this input has " + std::to_string(analysis.run.n_tokens()));
  }
}

// The rollout as a one-layer, one-head run, for the single-map figure.
RunAnalysis rollout_as_run(const RunAnalysis& analysis) {
  RunAnalysis r;
  r.run.tokens = analysis.run.tokens;
  r.run.info = analysis.run.info;
  r.run.special_tokens = analysis.run.special_tokens;
  r.run.attention = {{analysis.rollout}};
  return r;
}

std::vector<int> head_order(const RunAnalysis& analysis, const ExportSpec& spec) {
  if (!spec.cluster_order) return {};
  return cluster_heads(analysis.distance[size_t(spec.layer)]).order;
}

PairMeasure pair_measure_of(ExportView view) {
  return view == ExportView::distance ? PairMeasure::distance : PairMeasure::difference;
}

std::string figure_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec, ExportFormat format) {
  FigureSize size;
  size.scale = spec.scale;
  size.width = spec.width;
  size.height = spec.height;
  switch (spec.view) {
    case ExportView::heatmap: {
      HeatmapFigureExtras extras;
      if (spec.head < 0) extras.order = head_order(analysis, spec);
      return render_figure(heatmap_figure(analysis, spec.layer, spec.head, spec.colours, spec.style, extras),
                           figure_format(format), size);
    }
    case ExportView::overview:
      return render_figure(overview_figure(analysis, spec.colours, spec.style), figure_format(format), size);
    case ExportView::difference:
    case ExportView::distance:
      return render_figure(difference_figure(analysis, spec.layer, spec.colours.colormap, pair_measure_of(spec.view),
                                             head_order(analysis, spec), spec.style),
                           figure_format(format), size);
    case ExportView::roles:
      return render_figure(roles_figure(analysis, HeadRole(spec.role), spec.colours.colormap, spec.style),
                           figure_format(format), size);
    case ExportView::rollout: {
      const RunAnalysis r = rollout_as_run(analysis);
      HeatmapFigureExtras extras;
      const int L = analysis.run.n_layers();
      extras.title = figure_model_name(analysis.run) + " \u00b7 attention rollout through " + std::to_string(L) +
                     (L == 1 ? " layer" : " layers");
      extras.bar_title = "share of the input token";
      const MapMask mask = rollout_map(analysis).mask;
      extras.mask = &mask;
      return render_figure(heatmap_figure(r, 0, 0, spec.colours, spec.style, extras), figure_format(format), size);
    }
    case ExportView::sweep:
      return render_figure(sweep_figure(analysis, *sweep_for(analysis, sweep), spec.colours.colormap, spec.style),
                           figure_format(format), size);
  }
  return {};
}

std::string data_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec, ExportFormat format) {
  const AttentionRun& run = analysis.run;
  if (format == ExportFormat::json) {
    std::ostringstream out;
    write_maps_json(out, analysis);
    return out.str();
  }
  const bool npy = format == ExportFormat::npy;
  switch (spec.view) {
    case ExportView::heatmap:
      return npy ? attention_npy(run, spec.layer, spec.head) : attention_csv(run, spec.layer, spec.head);
    case ExportView::overview:
      return npy ? attention_npy(run, spec.layer, -1) : attention_csv(run, spec.layer, -1);
    case ExportView::difference:
    case ExportView::distance:
      return npy ? pairs_npy(analysis, spec.layer, pair_measure_of(spec.view))
                 : pairs_csv(analysis, spec.layer, pair_measure_of(spec.view));
    case ExportView::sweep: {
      const std::shared_ptr<const Sweep> s = sweep_for(analysis, sweep);
      return npy ? sweep_npy(s->points) : sweep_csv(s->points);
    }
    case ExportView::roles:
      if (spec.role < 0) return npy ? all_roles_npy(analysis.roles) : all_roles_csv(analysis.roles);
      return npy ? roles_npy(analysis.roles, HeadRole(spec.role)) : roles_csv(analysis.roles, HeadRole(spec.role));
    case ExportView::rollout:
      return npy ? map_npy(analysis.rollout) : map_csv(analysis.rollout, run.tokens);
  }
  return {};
}

}  // namespace

ExportView parse_export_view(const std::string& name) {
  for (ExportView v : {ExportView::heatmap, ExportView::difference, ExportView::distance, ExportView::sweep,
                       ExportView::roles, ExportView::rollout, ExportView::overview})
    if (name == export_view_name(v)) return v;
  throw InputError("unknown view '" + name + "'; expected heatmap, difference, distance, sweep, roles, rollout or overview");
}

const char* export_view_name(ExportView view) {
  switch (view) {
    case ExportView::heatmap: return "heatmap";
    case ExportView::difference: return "difference";
    case ExportView::distance: return "distance";
    case ExportView::sweep: return "sweep";
    case ExportView::roles: return "roles";
    case ExportView::rollout: return "rollout";
    case ExportView::overview: return "overview";
  }
  return "?";
}

const char* export_format_extension(ExportFormat format) {
  switch (format) {
    case ExportFormat::png: return "png";
    case ExportFormat::svg: return "svg";
    case ExportFormat::pdf: return "pdf";
    case ExportFormat::npy: return "npy";
    case ExportFormat::csv: return "csv";
    case ExportFormat::json: return "json";
  }
  return "?";
}

bool export_format_is_figure(ExportFormat f) {
  return f == ExportFormat::png || f == ExportFormat::svg || f == ExportFormat::pdf;
}

ExportFormat export_format_of(const std::string& path) {
  const std::string ext = lower(std::filesystem::path(path).extension().string());
  for (ExportFormat f : kFormats)
    if (ext == std::string(".") + export_format_extension(f)) return f;
  if (ext.empty()) throw InputError("'" + path + "' has no extension; expected " + kKnownExtensions);
  throw InputError("unknown export format '" + ext + "' ('" + path + "'); expected " + kKnownExtensions);
}

std::string export_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec) {
  const ExportFormat format = export_format_of(spec.path);
  check_layer_head(analysis, spec, format == ExportFormat::json);
  if (format != ExportFormat::json) check_view(analysis, spec);
  if (analysis.run.compact() && format != ExportFormat::json) {
    // Long-input mode: the block maxima as maps of their own, labelled (block_maxima_export.h).
    const RunAnalysis blocks = block_maxima_run(analysis);
    const std::string label = block_maxima_label(analysis.run);
    if (export_format_is_figure(format)) {
      ExportSpec labelled = spec;
      if (!labelled.style.colorbar_label) labelled.style.colorbar_label = label;
      return figure_bytes(blocks, sweep, labelled, format);
    }
    const std::string data = data_bytes(blocks, sweep, spec, format);
    return format == ExportFormat::csv ? "# " + label + " (long-input mode: " + analysis.long_input_reason + ")\n" + data
                                       : data;
  }
  return export_format_is_figure(format) ? figure_bytes(analysis, sweep, spec, format)
                                         : data_bytes(analysis, sweep, spec, format);
}

void export_view(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec) {
  if (spec.path.empty()) throw InputError("no output file: give --out FILE (or --out-dir DIR)");
  const std::string bytes = export_bytes(analysis, sweep, spec);
  if (analysis.run.compact() && export_format_of(spec.path) == ExportFormat::npy) {
    // An .npy holds no label: the sidecar says these are block maxima and of how many cells.
    write_file_atomic(block_maxima_sidecar_path(spec.path), block_maxima_sidecar_json(analysis));
  }
  write_file_atomic(spec.path, bytes);
}

std::vector<std::string> export_all(const RunAnalysis& analysis, const Sweep* sweep, const std::string& dir,
                                    const ExportSpec& base, const std::string& extension) {
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
    export_view(analysis, sweep, spec);
    written.push_back(path);
  };
  ExportSpec spec = base;
  spec.layer = 0;
  spec.head = -1;
  check_layer_head(analysis, spec, format == ExportFormat::json);
  if (format == ExportFormat::json) {
    write(spec, target("maps"));
  } else if (base.view == ExportView::sweep) {
    write(spec, target("sweep"));
  } else if (base.view == ExportView::rollout) {
    write(spec, target("rollout"));
  } else if (base.view == ExportView::roles) {
    for (int r = 0; r < kHeadRoleCount; ++r) {
      if (base.role >= 0 && r != base.role) continue;
      spec.role = r;
      write(spec, target(std::string("roles_") + head_role_name(HeadRole(r))));
    }
  } else if (base.view == ExportView::overview) {
    write(spec, target("overview"));
  } else if (base.view == ExportView::difference || base.view == ExportView::distance) {
    for (int l = 0; l < run.n_layers(); ++l) {
      spec.layer = l;
      write(spec, target("layer" + std::to_string(l) + "_" + export_view_name(base.view)));
    }
  } else {
    for (int l = 0; l < run.n_layers(); ++l) {
      for (int h = 0; h < run.n_heads(); ++h) {
        spec.layer = l;
        spec.head = h;
        write(spec, target("layer" + std::to_string(l) + "_head" + std::to_string(h)));
      }
    }
  }
  return written;
}

}  // namespace hs
