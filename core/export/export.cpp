#include "core/export/export.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>

#include "core/analysis/head_clustering.h"
#include "core/analysis/long_input.h"
#include "core/analysis/target_pattern.h"
#include "core/export/block_maxima_export.h"
#include "core/export/export_data.h"
#include "core/export/maps_json.h"
#include "core/export/view_data.h"
#include "core/render/ablation_figure.h"
#include "core/render/difference_figure.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "core/render/query_figure.h"
#include "core/render/reach_figure.h"
#include "core/render/roles_figure.h"
#include "core/render/shown_map.h"
#include "core/render/spectrum_figure.h"
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
// The query view reads the run's exact rows (query_profile.h), so it exports exact numbers there.
bool exports_block_maxima(const ExportSpec& spec, bool json) {
  return json || spec.view == ExportView::heatmap || spec.view == ExportView::overview ||
         spec.view == ExportView::heads || spec.view == ExportView::head;
}

bool reads_exact_rows(const ExportSpec& spec) { return spec.view == ExportView::query; }

void check_layer_head(const RunAnalysis& analysis, const ExportSpec& spec, bool json) {
  const AttentionRun& run = analysis.run;
  if (run.compact() && !exports_block_maxima(spec, json) && !reads_exact_rows(spec)) {
    throw InputError(std::string("the ") + export_view_name(spec.view) +
                     " view needs whole T x T maps, and this run keeps only block maxima (long-input mode: " +
                     analysis.long_input_reason +
                     "); the heads, head, heatmap and overview views (and .json) export the block maxima, the query "
                     "view the exact rows; headscope-cli export "
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

// What a view needs beyond a valid layer and head: role scores, a computed rollout or average,
// singular values or a sweep, query tokens in range.
void check_view(const RunAnalysis& analysis, const ExportSpec& spec) {
  if (spec.view == ExportView::roles) {
    if (spec.role < -1 || spec.role >= kHeadRoleCount) throw InputError("role " + std::to_string(spec.role) + " is not a head role");
    if (analysis.roles.empty()) throw InputError("this run has no head role scores");
  }
  if (spec.view == ExportView::rollout && analysis.rollout.size() == 0) {
    throw InputError("the attention rollout is computed for up to " + std::to_string(kRolloutMaxTokens) +
                     " tokens; this input has " + std::to_string(analysis.run.n_tokens()));
  }
  if (spec.view == ExportView::average && (size_t(spec.layer) >= analysis.average.size() ||
                                           analysis.average[size_t(spec.layer)].size() == 0)) {
    throw InputError("this run has no average map of layer " + std::to_string(spec.layer));
  }
  const int T = analysis.run.n_tokens();
  for (int q : spec.queries) {
    if (q < 0 || q >= T) {
      throw InputError("query token " + std::to_string(q) + " is out of range: the input has " + std::to_string(T) +
                       " tokens (valid: " + range(T) + ")");
    }
  }
}

// The query view's tokens: the chosen ones, or the last token.
std::vector<int> shown_queries(const RunAnalysis& analysis, const ExportSpec& spec) {
  if (!spec.queries.empty()) return spec.queries;
  return {analysis.run.n_tokens() - 1};
}

// The width view: the sweep when it can run for this analysis (the synthetic layer), else none.
std::shared_ptr<const Sweep> optional_sweep(const RunAnalysis& analysis, const Sweep* sweep) {
  std::shared_ptr<const Sweep> s = sweep ? std::shared_ptr<const Sweep>(std::shared_ptr<const Sweep>(), sweep)
                                         : analyse_sweep(analysis.request, analysis.run.tokens);
  return s->available ? s : nullptr;
}

// Singular values of the layers written; InputError saying why when the analysis has none.
void check_spectrum(const RunAnalysis& analysis, const std::vector<int>& layers) {
  for (int l : layers) {
    if (!has_spectrum(analysis, l)) {
      throw InputError("this run has no singular values for layer " + std::to_string(l) +
                       " (they are computed up to " + std::to_string(kSpectrumMaxTokens) +
                       " tokens while maps x tokens^3 stays small; this run has " +
                       std::to_string(analysis.run.n_layers() * analysis.run.n_heads()) + " maps of " +
                       std::to_string(analysis.run.n_tokens()) + " tokens)");
    }
  }
}

// The width view's pattern fit: spec.pattern's, or the previous token's when the sentence fits;
// none for "none" or a run without reachable keys.
std::optional<PatternFit> width_fit(const RunAnalysis& analysis, const ExportSpec& spec) {
  const int T = analysis.run.n_tokens();
  if (spec.pattern == "none" || analysis.reach.empty()) return std::nullopt;
  if (spec.pattern.empty() && (T < 2 || T > kFitMaxTokens)) return std::nullopt;
  PatternFitOptions options;
  options.seed = analysis.request.seed;
  options.widths = spec.fit_widths;
  return fit_pattern(target_pattern(spec.pattern.empty() ? "previous" : spec.pattern, analysis), options);
}

// The width view's figure: the heads' reachable keys and the fit (reach_figure.h) over the sweep
// and the singular values (width_figure), as many as the analysis has. On a page too small for
// them together, the first of these that fits, with a note: the maps and the fit alone, the maps
// alone, the sweep and singular values alone. InputError when the analysis has none of them.
Figure width_view_figure(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                         const std::optional<PatternFit>& fit) {
  const std::shared_ptr<const Sweep> s = optional_sweep(analysis, sweep);
  const bool reach = size_t(spec.layer) < analysis.reach.size(), rest = s || has_spectrum(analysis, spec.layer);
  if (!rest && !reach) check_spectrum(analysis, {spec.layer});  // says why when there is nothing at all
  const Colormap colormap = spec.colours.colormap;
  const std::string title = fit ? pattern_title(spec.pattern.empty() ? "previous" : spec.pattern, analysis) : "";
  const auto maps = [&](const FigureStyle& style, bool with_fit) {
    return reach_figure(analysis, spec.layer, with_fit && fit ? &*fit : nullptr, title, colormap, style);
  };
  const auto others = [&](const FigureStyle& style) { return width_figure(analysis, s.get(), spec.layer, colormap, style); };
  struct Try {
    const char* alone;  // what is left, for the note
    std::function<Figure()> make;
  };
  std::vector<Try> tries;
  if (reach && rest) {
    tries.push_back({"", [&] {
                       FigureStyle top = spec.style, bottom = spec.style;
                       if (spec.style.page_height > 0) top.page_height = bottom.page_height = spec.style.page_height * 0.5;
                       bottom.title.clear();  // a --title names the whole figure once, at the top
                       return figures_in_line({maps(top, true), others(bottom)}, spec.style.sized() ? 0 : 12, true);
                     }});
  }
  if (reach) tries.push_back({fit ? "the maps and the pattern fit alone" : "the maps alone", [&] { return maps(spec.style, true); }});
  if (reach && fit) tries.push_back({"the maps alone", [&] { return maps(spec.style, false); }});
  if (rest) tries.push_back({"the sweep and singular values alone", [&] { return others(spec.style); }});
  for (size_t k = 0; k < tries.size(); ++k) {
    try {
      Figure fig = tries[k].make();
      if (k > 0) fig.notes.push_back(std::string("the page is too small for the whole head-width view: ") + tries[k].alone +
                                     " (give a larger --size)");
      return fig;
    } catch (const InputError&) {
      if (!spec.style.sized() || k + 1 == tries.size()) throw;
    }
  }
  return {};
}

// The ablation to export: the caller's (not owned), or computed now (InputError for a model
// without a next-token loss).
std::shared_ptr<const HeadAblation> ablation_for(const RunAnalysis& analysis, const HeadAblation* ablation,
                                                 const ExportSpec& spec) {
  if (ablation) return std::shared_ptr<const HeadAblation>(std::shared_ptr<const HeadAblation>(), ablation);
  AblationOptions options;
  options.mode = spec.ablation_mode;
  try {
    return std::make_shared<const HeadAblation>(ablate_heads(analysis.request, options));
  } catch (const InputError& e) {
    throw InputError(std::string("the ablation view shows the change in next-token loss, and this model has no loss: ") +
                     e.what());
  }
}

// A map of the run that is no head's (the rollout, a layer's average), drawn as one head is, with
// the mask that travels with it (core/render/shown_map.h).
// Renders the figure; its notes go to spec.notes.
std::string render(const ExportSpec& spec, const Figure& figure, FigureFormat format, const FigureSize& size) {
  if (spec.notes) spec.notes->insert(spec.notes->end(), figure.notes.begin(), figure.notes.end());
  return render_figure(figure, format, size);
}

std::string one_map_figure(const RunAnalysis& analysis, const ShownMap& map, HeatmapFigureExtras extras,
                           const ColourScale& colours, const ExportSpec& spec, ExportFormat format, const FigureSize& size) {
  RunAnalysis r;
  r.run.tokens = analysis.run.tokens;
  r.run.info = analysis.run.info;
  r.run.special_tokens = analysis.run.special_tokens;
  r.run.attention = {{*map.cells}};
  extras.mask = &map.mask;
  return render(spec, heatmap_figure(r, 0, 0, colours, spec.style, extras), figure_format(format), size);
}

std::vector<int> head_order(const RunAnalysis& analysis, const ExportSpec& spec) {
  if (!spec.cluster_order) return {};
  return cluster_heads(analysis.distance[size_t(spec.layer)]).order;
}

PairMeasure pair_measure_of(ExportView view) {
  return view == ExportView::distance ? PairMeasure::distance : PairMeasure::difference;
}

std::string figure_bytes(const RunAnalysis& analysis, const Sweep* sweep, const HeadAblation* ablation,
                         const ExportSpec& spec, ExportFormat format) {
  FigureSize size;
  size.scale = spec.scale;
  size.width = spec.width;
  size.height = spec.height;
  const bool every_head = spec.view == ExportView::heads || (spec.view == ExportView::heatmap && spec.head < 0);
  if (every_head && spec.layers == LayerScope::every) {  // the heads of every layer: the overview
    return render(spec, overview_figure(analysis, spec.colours, spec.style), figure_format(format), size);
  }
  switch (spec.view) {
    case ExportView::heatmap:
    case ExportView::heads:
    case ExportView::head: {
      const int head = spec.view == ExportView::heads ? -1 : spec.view == ExportView::head ? std::max(spec.head, 0) : spec.head;
      HeatmapFigureExtras extras;
      if (head < 0) extras.order = head_order(analysis, spec);
      return render(spec, heatmap_figure(analysis, spec.layer, head, spec.colours, spec.style, extras),
                           figure_format(format), size);
    }
    case ExportView::overview:
      return render(spec, overview_figure(analysis, spec.colours, spec.style), figure_format(format), size);
    case ExportView::difference:
    case ExportView::distance:
      return render(spec, difference_figure(analysis, spec.layer, spec.colours.colormap, pair_measure_of(spec.view),
                                             head_order(analysis, spec), spec.style),
                           figure_format(format), size);
    case ExportView::roles:
      return render(spec, spec.role < 0 ? all_roles_figure(analysis, spec.colours.colormap, spec.style)
                                         : roles_figure(analysis, HeadRole(spec.role), spec.colours.colormap, spec.style),
                           figure_format(format), size);
    case ExportView::rollout: {
      HeatmapFigureExtras extras;
      const int L = analysis.run.n_layers();
      extras.title = figure_model_name(analysis.run) + " \u00b7 attention rollout through " + std::to_string(L) +
                     (L == 1 ? " layer" : " layers");
      extras.bar_title = "share of the input token";
      return one_map_figure(analysis, rollout_map(analysis), extras, spec.colours, spec, format, size);
    }
    case ExportView::average: {
      // On the layer's range, as the app shows the average beside its heads.
      ColourScale colours = spec.colours;
      const size_t l = size_t(spec.layer);
      if (colours.fixed_max <= 0 && !colours.per_map && l < analysis.layer_max.size())
        colours.fixed_max = colours.ignore_first_key ? analysis.layer_max_skip_first[l] : analysis.layer_max[l];
      HeatmapFigureExtras extras;
      const int H = analysis.run.n_heads();
      extras.title = figure_model_name(analysis.run) + " \u00b7 layer " + std::to_string(spec.layer) + " \u00b7 mean of " +
                     std::to_string(H) + (H == 1 ? " head" : " heads");
      extras.bar_title = "mean attention weight";
      return one_map_figure(analysis, average_map(analysis, spec.layer), extras, colours, spec, format, size);
    }
    case ExportView::query:
      return render(spec, query_figure(analysis, spec.layer, shown_queries(analysis, spec), spec.colours.colormap, spec.style),
                           figure_format(format), size);
    case ExportView::width: {
      const std::optional<PatternFit> fit = width_fit(analysis, spec);  // the figure refers to it
      return render(spec, width_view_figure(analysis, sweep, spec, fit), figure_format(format), size);
    }
    case ExportView::ablation:
      return render(spec, ablation_figure(analysis, *ablation_for(analysis, ablation, spec), spec.style),
                           figure_format(format), size);
    case ExportView::sweep:
      return render(spec, sweep_figure(analysis, *sweep_for(analysis, sweep), spec.colours.colormap, spec.style),
                           figure_format(format), size);
  }
  return {};
}

// The maps of a heads / head view as CSV: one map in the contract's matrix layout (automatic with a
// head), one tidy table, or the layer's matrices (matrix).
std::string maps_csv(const AttentionRun& run, const ExportSpec& spec, int head, const std::vector<int>& layers) {
  const bool matrix = spec.csv_layout == CsvLayout::matrix || (spec.csv_layout == CsvLayout::automatic && head >= 0);
  return matrix ? attention_csv(run, spec.layer, head) : attention_tidy_csv(run, layers, head);
}

std::string data_bytes(const RunAnalysis& analysis, const Sweep* sweep, const HeadAblation* ablation,
                       const ExportSpec& spec, ExportFormat format) {
  const AttentionRun& run = analysis.run;
  if (format == ExportFormat::json) {
    std::ostringstream out;
    MapsJsonExtras extras;
    if (spec.layers == LayerScope::one) extras.only_layer = spec.layer;
    std::shared_ptr<const HeadAblation> a;
    if (spec.view == ExportView::ablation) extras.ablation = (a = ablation_for(analysis, ablation, spec)).get();
    write_maps_json(out, analysis, extras);
    return out.str();
  }
  const std::vector<int> layers = exported_layers(run.n_layers(), spec.layers != LayerScope::one, spec.layer);
  const bool npy = format == ExportFormat::npy;
  switch (spec.view) {
    case ExportView::heatmap:
    case ExportView::heads:
    case ExportView::head:
    case ExportView::overview: {
      const int head = spec.view == ExportView::head ? std::max(spec.head, 0)
                       : spec.view == ExportView::heatmap ? spec.head
                                                          : -1;
      if (npy) return head >= 0 ? attention_npy(run, spec.layer, head) : layers_attention_npy(run, layers);
      return maps_csv(run, spec, head, layers);
    }
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
    case ExportView::average:
      if (npy) return average_npy(analysis, layers);
      return spec.csv_layout == CsvLayout::matrix ? map_csv(analysis.average[size_t(spec.layer)], run.tokens)
                                                  : average_tidy_csv(analysis, layers);
    case ExportView::query: {
      const std::vector<int> q = shown_queries(analysis, spec);
      return npy ? query_npy(run, layers, q) : query_tidy_csv(run, layers, q);
    }
    case ExportView::width:
      check_spectrum(analysis, layers);
      return npy ? spectrum_npy(analysis, layers) : spectrum_tidy_csv(analysis, layers);
    case ExportView::ablation: {
      const std::shared_ptr<const HeadAblation> a = ablation_for(analysis, ablation, spec);
      return npy ? ablation_npy(*a) : ablation_tidy_csv(*a);
    }
  }
  return {};
}

}  // namespace

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

std::string export_bytes(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec,
                         const HeadAblation* ablation) {
  const ExportFormat format = export_format_of(spec.path);
  check_layer_head(analysis, spec, format == ExportFormat::json);
  if (format != ExportFormat::json) check_view(analysis, spec);
  if (analysis.run.compact() && format != ExportFormat::json && !reads_exact_rows(spec)) {
    // Long-input mode: the block maxima as maps of their own, labelled (block_maxima_export.h).
    const RunAnalysis blocks = block_maxima_run(analysis);
    const std::string label = block_maxima_label(analysis.run);
    if (export_format_is_figure(format)) {
      ExportSpec labelled = spec;
      if (!labelled.style.colorbar_label) labelled.style.colorbar_label = label;
      return figure_bytes(blocks, sweep, ablation, labelled, format);
    }
    const std::string data = data_bytes(blocks, sweep, ablation, spec, format);
    return format == ExportFormat::csv ? "# " + label + " (long-input mode: " + analysis.long_input_reason + ")\n" + data
                                       : data;
  }
  return export_format_is_figure(format) ? figure_bytes(analysis, sweep, ablation, spec, format)
                                         : data_bytes(analysis, sweep, ablation, spec, format);
}

void export_view(const RunAnalysis& analysis, const Sweep* sweep, const ExportSpec& spec, const HeadAblation* ablation) {
  if (spec.path.empty()) throw InputError("no output file: give --out FILE (or --out-dir DIR)");
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
  const ExportView v = base.view;
  if (format == ExportFormat::json) {
    spec.layers = LayerScope::unset;
    write(spec, target("maps"));
  } else if (v == ExportView::sweep || v == ExportView::rollout || v == ExportView::overview || v == ExportView::ablation) {
    write(spec, target(export_view_name(v)));
  } else if (v == ExportView::roles) {
    for (int r = 0; r < kHeadRoleCount; ++r) {
      if (base.role >= 0 && r != base.role) continue;
      spec.role = r;
      write(spec, target(std::string("roles_") + head_role_name(HeadRole(r))));
    }
  } else if (v == ExportView::heatmap || v == ExportView::head) {
    spec.layers = LayerScope::unset;  // one head: [T, T] as always
    for (int l = 0; l < run.n_layers(); ++l) {
      for (int h = 0; h < run.n_heads(); ++h) {
        spec.layer = l;
        spec.head = h;
        write(spec, target("layer" + std::to_string(l) + "_head" + std::to_string(h)));
      }
    }
  } else {  // difference, distance, heads, query, average, width: one file per layer
    if (v == ExportView::difference || v == ExportView::distance) spec.layers = LayerScope::unset;
    for (int l = 0; l < run.n_layers(); ++l) {
      spec.layer = l;
      write(spec, target("layer" + std::to_string(l) + "_" + export_view_name(v)));
    }
  }
  return written;
}

}  // namespace hs
