// The view registry (view_registry.h): the table of views at the end of this file, one row per
// view, and the writers its rows point to, each turning one export (core/export/export.h's
// ViewExport) into a figure's or a data file's bytes; the views' interactive pages are written by
// view_pages.cpp (view_writers.h).
#include "core/export/view_registry.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include "core/analysis/head_clustering.h"
#include "core/analysis/long_input.h"
#include "core/analysis/target_pattern.h"
#include "core/export/export.h"
#include "core/export/export_data.h"
#include "core/export/maps_json.h"
#include "core/export/view_data.h"
#include "core/export/view_writers.h"
#include "core/render/ablation_figure.h"
#include "core/render/difference_figure.h"
#include "core/render/heatmap_figure.h"
#include "core/render/query_figure.h"
#include "core/render/reach_figure.h"
#include "core/render/roles_figure.h"
#include "core/render/shown_map.h"
#include "core/render/spectrum_figure.h"
#include "core/render/sweep_figure.h"
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {

std::string ViewExport::render(const Figure& figure) const {
  if (spec.notes) spec.notes->insert(spec.notes->end(), figure.notes.begin(), figure.notes.end());
  return render_figure(figure, format, size);
}

int ViewExport::head() const {
  switch (view_descriptor(spec.view).scope) {
    case ViewScope::head: return std::max(spec.head, 0);
    case ViewScope::head_or_layer: return spec.head;
    case ViewScope::layer:
    case ViewScope::model: return -1;
  }
  return -1;
}

// ---- checks and inputs the figures, data files and pages share (view_writers.h) ----

namespace {

std::string registry_index_range(int n) { return n > 0 ? "0 to " + std::to_string(n - 1) : "none"; }

}  // namespace

namespace view_writers {

// The chosen tokens (checked against the input), or the last token.
std::vector<int> shown_queries(const ViewExport& in) {
  const int T = in.analysis.run.n_tokens();
  for (int q : in.spec.queries) {
    if (q < 0 || q >= T) {
      throw InputError("query token " + std::to_string(q) + " is out of range: the input has " + std::to_string(T) +
                       " tokens (valid: " + registry_index_range(T) + ")");
    }
  }
  return in.spec.queries.empty() ? std::vector<int>{T - 1} : in.spec.queries;
}

void check_average(const ViewExport& in) {
  const size_t l = size_t(in.spec.layer);
  if (l >= in.analysis.average.size() || in.analysis.average[l].size() == 0)
    throw InputError("this run has no average map of layer " + std::to_string(in.spec.layer));
}

void check_rollout(const ViewExport& in) {
  if (in.analysis.rollout.size() > 0) return;
  throw InputError("the attention rollout is computed for up to " + std::to_string(kRolloutMaxTokens) +
                   " tokens; this input has " + std::to_string(in.analysis.run.n_tokens()));
}

void check_roles(const ViewExport& in) {
  if (in.spec.role < -1 || in.spec.role >= kHeadRoleCount) throw InputError("role " + std::to_string(in.spec.role) + " is not a head role");
  if (in.analysis.roles.empty()) throw InputError("this run has no head role scores");
}

// The caller's ablation (not owned), or computed now (InputError for a model without a loss).
std::shared_ptr<const HeadAblation> ablation_for(const ViewExport& in) {
  if (in.ablation) return std::shared_ptr<const HeadAblation>(std::shared_ptr<const HeadAblation>(), in.ablation);
  AblationOptions options;
  options.mode = in.spec.ablation_mode;
  try {
    return std::make_shared<const HeadAblation>(ablate_heads(in.analysis.request, options));
  } catch (const InputError& e) {
    throw InputError(std::string("the ablation view shows the change in next-token loss, and this model has no loss: ") +
                     e.what());
  }
}

}  // namespace view_writers

namespace {

// ---- what several views share ----

// A view's sweep: the caller's (not owned: the aliasing constructor with an empty owner), or
// computed now; null when it cannot run for this analysis (a sweep re-initialises the synthetic layer).
std::shared_ptr<const Sweep> optional_sweep(const ViewExport& in) {
  std::shared_ptr<const Sweep> s = in.sweep ? std::shared_ptr<const Sweep>(std::shared_ptr<const Sweep>(), in.sweep)
                                            : analyse_sweep(in.analysis.request, in.analysis.run.tokens);
  return s->available ? s : nullptr;
}

// The same, with InputError (the sweep's note) when it cannot run.
std::shared_ptr<const Sweep> needed_sweep(const ViewExport& in) {
  std::shared_ptr<const Sweep> s = in.sweep ? std::shared_ptr<const Sweep>(std::shared_ptr<const Sweep>(), in.sweep)
                                            : analyse_sweep(in.analysis.request, in.analysis.run.tokens);
  if (!s->available) throw InputError(s->note.empty() ? "the head-count sweep is not available for this run" : s->note);
  return s;
}

// Singular values of the layers written; InputError saying why when the analysis has none.
void check_spectrum(const RunAnalysis& analysis, const std::vector<int>& layers) {
  for (int l : layers) {
    if (has_spectrum(analysis, l)) continue;
    throw InputError("this run has no singular values for layer " + std::to_string(l) + " (they are computed up to " +
                     std::to_string(kSpectrumMaxTokens) + " tokens while maps x tokens^3 stays small; this run has " +
                     std::to_string(analysis.run.n_layers() * analysis.run.n_heads()) + " maps of " +
                     std::to_string(analysis.run.n_tokens()) + " tokens)");
  }
}

std::vector<int> head_order(const ViewExport& in) {
  if (!in.spec.cluster_order) return {};
  return cluster_heads(in.analysis.distance[size_t(in.spec.layer)]).order;
}

// A map of the run that is no head's (the rollout, a layer's average), drawn as one head is, with
// the mask that travels with it (core/render/shown_map.h).
std::string one_map_figure(const ViewExport& in, const ShownMap& map, HeatmapFigureExtras extras, const ColourScale& colours) {
  RunAnalysis r;
  r.run.tokens = in.analysis.run.tokens;
  r.run.info = in.analysis.run.info;
  r.run.special_tokens = in.analysis.run.special_tokens;
  r.run.attention = {{*map.cells}};
  extras.mask = &map.mask;
  return in.render(heatmap_figure(r, 0, 0, colours, in.spec.style, extras));
}

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// ---- heads, head, heatmap, overview: the maps ----

std::string maps_figure(const ViewExport& in) {
  const int head = in.head();
  if (head < 0 && in.spec.layers == LayerScope::every) {  // the heads of every layer: the overview
    return in.render(overview_figure(in.analysis, in.spec.colours, in.spec.style));
  }
  HeatmapFigureExtras extras;
  if (head < 0) extras.order = head_order(in);
  return in.render(heatmap_figure(in.analysis, in.spec.layer, head, in.spec.colours, in.spec.style, extras));
}

std::string overview_figure_bytes(const ViewExport& in) {
  return in.render(overview_figure(in.analysis, in.spec.colours, in.spec.style));
}

std::string maps_npy(const ViewExport& in) {
  const int head = in.head();
  return head >= 0 ? attention_npy(in.analysis.run, in.spec.layer, head) : layers_attention_npy(in.analysis.run, in.layers);
}

// One map in the contract's matrix layout (automatic with a head), one tidy table, or the layer's
// matrices (matrix).
std::string maps_csv(const ViewExport& in) {
  const int head = in.head();
  const CsvLayout layout = in.spec.csv_layout;
  const bool matrix = layout == CsvLayout::matrix || (layout == CsvLayout::automatic && head >= 0);
  return matrix ? attention_csv(in.analysis.run, in.spec.layer, head) : attention_tidy_csv(in.analysis.run, in.layers, head);
}

std::string maps_json_with(const ViewExport& in, const HeadAblation* ablation) {
  std::ostringstream out;
  MapsJsonExtras extras;
  if (in.spec.layers == LayerScope::one) extras.only_layer = in.spec.layer;
  extras.ablation = ablation;
  write_maps_json(out, in.analysis, extras);
  return out.str();
}

std::string maps_json(const ViewExport& in) { return maps_json_with(in, nullptr); }

// ---- difference (and its part distance): the head pairs of a layer, in the head distance ----

std::string pairs_figure_bytes(const ViewExport& in) {
  return in.render(difference_figure(in.analysis, in.spec.layer, in.spec.colours.colormap, head_order(in), in.spec.style));
}
std::string pairs_npy_bytes(const ViewExport& in) { return pairs_npy(in.analysis, in.spec.layer); }
std::string pairs_csv_bytes(const ViewExport& in) { return pairs_csv(in.analysis, in.spec.layer); }

// ---- query: where the chosen query tokens look ----

std::string query_figure_bytes(const ViewExport& in) {
  const std::vector<int> queries = view_writers::shown_queries(in);
  return in.render(query_figure(in.analysis, in.spec.layer, queries, in.spec.colours.colormap, in.spec.style));
}
std::string query_npy_bytes(const ViewExport& in) {
  return query_npy(in.analysis.run, in.layers, view_writers::shown_queries(in));
}
std::string query_csv_bytes(const ViewExport& in) {
  return query_tidy_csv(in.analysis.run, in.layers, view_writers::shown_queries(in));
}

// ---- average, rollout: one map of the layer, or of every layer ----

std::string average_figure_bytes(const ViewExport& in) {
  view_writers::check_average(in);
  // On the layer's range, as the app shows the average beside its heads.
  ColourScale colours = in.spec.colours;
  const size_t l = size_t(in.spec.layer);
  const RunAnalysis& a = in.analysis;
  if (colours.fixed_max <= 0 && !colours.per_map && l < a.layer_max.size())
    colours.fixed_max = colours.ignore_first_key ? a.layer_max_skip_first[l] : a.layer_max[l];
  HeatmapFigureExtras extras;
  extras.title = figure_model_name(a.run) + " \u00b7 layer " + std::to_string(in.spec.layer) + " \u00b7 mean of " +
                 plural(a.run.n_heads(), "head", "heads");
  extras.bar_title = "mean attention weight";
  return one_map_figure(in, average_map(a, in.spec.layer), extras, colours);
}

std::string average_npy_bytes(const ViewExport& in) {
  view_writers::check_average(in);
  return average_npy(in.analysis, in.layers);
}

std::string average_csv_bytes(const ViewExport& in) {
  view_writers::check_average(in);
  if (in.spec.csv_layout == CsvLayout::matrix) return map_csv(in.analysis.average[size_t(in.spec.layer)], in.analysis.run.tokens);
  return average_tidy_csv(in.analysis, in.layers);
}

std::string rollout_figure_bytes(const ViewExport& in) {
  view_writers::check_rollout(in);
  HeatmapFigureExtras extras;
  extras.title = figure_model_name(in.analysis.run) + " \u00b7 attention rollout through " +
                 plural(in.analysis.run.n_layers(), "layer", "layers");
  extras.bar_title = "share of the input token";
  return one_map_figure(in, rollout_map(in.analysis), extras, in.spec.colours);
}
std::string rollout_npy(const ViewExport& in) { return view_writers::check_rollout(in), map_npy(in.analysis.rollout); }
std::string rollout_csv(const ViewExport& in) {
  return view_writers::check_rollout(in), map_csv(in.analysis.rollout, in.analysis.run.tokens);
}

// ---- width, sweep: narrower heads ----

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
Figure width_view_figure(const ViewExport& in, const std::optional<PatternFit>& fit) {
  const RunAnalysis& analysis = in.analysis;
  const ExportSpec& spec = in.spec;
  const std::shared_ptr<const Sweep> s = optional_sweep(in);
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

std::string width_figure_bytes(const ViewExport& in) {
  const std::optional<PatternFit> fit = width_fit(in.analysis, in.spec);  // the figure refers to it
  return in.render(width_view_figure(in, fit));
}
std::string spectrum_npy_bytes(const ViewExport& in) {
  check_spectrum(in.analysis, in.layers);
  return spectrum_npy(in.analysis, in.layers);
}
std::string spectrum_csv_bytes(const ViewExport& in) {
  check_spectrum(in.analysis, in.layers);
  return spectrum_tidy_csv(in.analysis, in.layers);
}
std::string sweep_figure_bytes(const ViewExport& in) {
  return in.render(sweep_figure(in.analysis, *needed_sweep(in), in.spec.colours.colormap, in.spec.style));
}
std::string sweep_npy_bytes(const ViewExport& in) { return sweep_npy(needed_sweep(in)->points); }
std::string sweep_csv_bytes(const ViewExport& in) { return sweep_csv(needed_sweep(in)->points); }

// ---- roles: one role's layers x heads, or every role ----

std::string roles_figure_bytes(const ViewExport& in) {
  view_writers::check_roles(in);
  const Colormap c = in.spec.colours.colormap;
  return in.render(in.spec.role < 0 ? all_roles_figure(in.analysis, c, in.spec.style)
                                    : roles_figure(in.analysis, HeadRole(in.spec.role), c, in.spec.style));
}
std::string roles_npy_bytes(const ViewExport& in) {
  view_writers::check_roles(in);
  const HeadRoles& r = in.analysis.roles;
  return in.spec.role < 0 ? all_roles_npy(r) : roles_npy(r, HeadRole(in.spec.role));
}
std::string roles_csv_bytes(const ViewExport& in) {
  view_writers::check_roles(in);
  const HeadRoles& r = in.analysis.roles;
  return in.spec.role < 0 ? all_roles_csv(r) : roles_csv(r, HeadRole(in.spec.role));
}

// ---- ablation: the change in next-token loss with each head knocked out ----

std::string ablation_figure_bytes(const ViewExport& in) {
  return in.render(ablation_figure(in.analysis, *view_writers::ablation_for(in), in.spec.style));
}
std::string ablation_npy_bytes(const ViewExport& in) { return ablation_npy(*view_writers::ablation_for(in)); }
std::string ablation_csv_bytes(const ViewExport& in) { return ablation_tidy_csv(*view_writers::ablation_for(in)); }
std::string ablation_json(const ViewExport& in) { return maps_json_with(in, view_writers::ablation_for(in).get()); }

// ---- the table ----

using S = ViewScope;
using M = ViewMaps;

// One row per view, in the enum's order: the tabs (in tab order), then the parts of tabs.
const std::vector<ViewDescriptor> kViews = {
    {View::heads, "heads", {"grid"}, "Heads", View::heads, S::layer, M::block_maxima,
     "every head of --layer as a grid (data: every layer, or --layer's)", "heads",
     maps_figure, maps_npy, maps_csv, maps_json, view_writers::maps_page},
    {View::head, "head", {}, "Single head", View::head, S::head, M::block_maxima,
     "one head (--head, default 0) of --layer", "head",
     maps_figure, maps_npy, maps_csv, maps_json, view_writers::maps_page},
    {View::query, "query", {}, "Query", View::query, S::layer, M::exact_rows,
     "where the --query tokens look (rows summed), head by head: bars over the keys (data [layers, H, T])", "query",
     query_figure_bytes, query_npy_bytes, query_csv_bytes, maps_json, view_writers::query_page},
    {View::difference, "difference", {}, "Head difference", View::difference, S::layer, M::whole,
     "the head-pair table in the head distance: mean over query rows of the total variation between the two "
     "heads' rows, 0 to 1 at any length, [H, H]", "difference",
     pairs_figure_bytes, pairs_npy_bytes, pairs_csv_bytes, maps_json, view_writers::pairs_page},
    {View::average, "average", {}, "Average", View::average, S::layer, M::whole,
     "the layer's mean over heads, [T, T] (--rollout: the attention rollout)", "average",
     average_figure_bytes, average_npy_bytes, average_csv_bytes, maps_json, view_writers::average_page},
    {View::width, "width", {}, "Head width", View::width, S::layer, M::whole,
     "each head's map with its reachable keys marked and a pattern (--pattern) fitted at every width, over the "
     "head-count sweep plots and each head's singular values (data [layers, H, T])", "width",
     width_figure_bytes, spectrum_npy_bytes, spectrum_csv_bytes, maps_json},
    {View::roles, "roles", {}, "Head roles", View::roles, S::model, M::whole,
     "every head role of every head (--role R: one role's layers x heads map)", "roles",
     roles_figure_bytes, roles_npy_bytes, roles_csv_bytes, maps_json, view_writers::roles_page},
    {View::ablation, "ablation", {}, "Ablation", View::ablation, S::model, M::whole,
     "change in next-token loss with each head knocked out, [layers, heads] (models with a loss)", "ablation",
     ablation_figure_bytes, ablation_npy_bytes, ablation_csv_bytes, ablation_json, view_writers::ablation_page},
    // Two runs, not one: written by `headscope-cli compare --out` (core/export/contrast_export.h).
    {View::contrast, "contrast", {}, "Contrast", View::contrast, S::head, M::whole,
     "a minimal pair: sentence B's maps beside A's, heads sorted by how far their rows moved (compare --out)", "contrast"},
    {View::heatmap, "heatmap", {}, "Heatmap", View::heads, S::head_or_layer, M::block_maxima,
     "heads without --head, head with it", "heatmap",
     maps_figure, maps_npy, maps_csv, maps_json, view_writers::maps_page},
    {View::overview, "overview", {"layers"}, "Layers x heads overview", View::heads, S::model, M::block_maxima,
     "every head of every layer in one figure (heads --all-layers)", "overview",
     overview_figure_bytes, maps_npy, maps_csv, maps_json, view_writers::maps_page},
    {View::distance, "distance", {}, "Head distance", View::difference, S::layer, M::whole,
     "the Head difference view's head-pair table (the head distance)", "distance",
     pairs_figure_bytes, pairs_npy_bytes, pairs_csv_bytes, maps_json, view_writers::pairs_page},
    {View::rollout, "rollout", {}, "Attention rollout", View::average, S::model, M::whole,
     "the attention rollout through every layer (average --rollout)", "rollout",
     rollout_figure_bytes, rollout_npy, rollout_csv, maps_json, view_writers::rollout_page},
    {View::sweep, "sweep", {}, "Head-count sweep", View::width, S::model, M::whole,
     "the head-count sweep plots alone", "sweep",
     sweep_figure_bytes, sweep_npy_bytes, sweep_csv_bytes, maps_json},
};

}  // namespace

const std::vector<ViewDescriptor>& all_views() { return kViews; }

const ViewDescriptor& view_descriptor(View view) {
  assert(size_t(view) < kViews.size() && kViews[size_t(view)].view == view && "a row per view, in the enum's order");
  return kViews[size_t(view)];
}

const char* view_name(View view) { return view_descriptor(view).name; }

bool is_tab(View view) { return view_descriptor(view).tab == view; }

std::vector<View> tab_views() {
  std::vector<View> tabs;
  for (const ViewDescriptor& v : kViews)
    if (v.tab == v.view) tabs.push_back(v.view);
  return tabs;
}

const ViewDescriptor* find_view(const std::string& name) {
  for (const ViewDescriptor& v : kViews)
    if (name == v.name || std::find(v.aliases.begin(), v.aliases.end(), name) != v.aliases.end()) return &v;
  return nullptr;
}

std::vector<std::string> view_names(bool tabs_only) {
  std::vector<std::string> names;
  for (const ViewDescriptor& v : kViews)
    if (!tabs_only || is_tab(v.view)) names.emplace_back(v.name);
  for (const ViewDescriptor& v : kViews)
    if (!tabs_only || is_tab(v.view)) names.insert(names.end(), v.aliases.begin(), v.aliases.end());
  return names;
}

View parse_view(const std::string& name, bool tabs_only) {
  const ViewDescriptor* v = find_view(name);
  if (v && (!tabs_only || is_tab(v->view))) return v->view;
  std::vector<std::string> names;
  for (const ViewDescriptor& d : kViews)
    if (!tabs_only || is_tab(d.view)) names.emplace_back(d.name);
  throw InputError("unknown view '" + excerpt(name) + "'" + did_you_mean(name, view_names(tabs_only)) + "; expected " +
                   or_list(names));
}

std::string html_view_names() {
  std::vector<std::string> names;
  for (const ViewDescriptor& v : kViews)
    if (v.html) names.emplace_back(v.name);
  return or_list(names);
}

std::string view_help(bool tabs_only) {
  std::string tabs, parts, aliases;
  for (const ViewDescriptor& v : kViews) {
    if (tabs_only && !is_tab(v.view)) continue;
    const std::string line = std::string("\n  ") + v.name + ": " + v.shows;
    if (is_tab(v.view)) tabs += line;
    else parts += line + " [part of " + view_name(v.tab) + "]";
    for (const std::string& a : v.aliases) aliases += (aliases.empty() ? "" : ", ") + a + " = " + v.name;
  }
  std::string help = "Views (the app's tabs):" + tabs;
  if (!parts.empty()) help += "\nParts of a tab:" + parts;
  if (!aliases.empty()) help += "\nAlso read: " + aliases;
  return help;
}

}  // namespace hs
