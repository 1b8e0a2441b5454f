#pragma once
// The view registry: one row per view (view_registry.cpp), and every list of views is read from
// it: the app's tabs and their titles, `--view` of both programs and its help, session files'
// "panel", lesson steps' "tab:NAME" unlocks, export's figures and data files. The app adds a
// view's draw function (app/gui/panels/view_panels.cpp) and its state; docs/layout.md says how to
// add a view.
#include <string>
#include <vector>

namespace hs {

// Every view: the app's tabs first, in tab order; then the views that are a part of a tab
// (export writes them alone; the app opens their tab with that part shown).
enum class View {
  heads, head, query, difference, average, width, roles, ablation, contrast,
  heatmap, overview, distance, rollout, sweep,
};

// What one export of the view covers: which of --layer and --head apply, and the files
// `export --out-dir` writes (one per head, per layer, or one).
enum class ViewScope {
  head,          // one head of a layer
  layer,         // every head of one layer
  head_or_layer, // one head with --head, else every head of the layer
  model,         // the whole model: no --layer, no --head
};

// The maps an export of the view reads, for long-input runs that keep only block maxima.
enum class ViewMaps {
  whole,         // whole T x T maps: refused in long-input mode
  block_maxima,  // long-input mode exports the block maxima, labelled as such
  exact_rows,    // reads the run's exact rows (core/analysis/query_profile.h)
};

struct ViewExport;  // what a writer is given (core/export/view_writers.h)
using ViewWriter = std::string (*)(const ViewExport&);

struct ViewDescriptor {
  View view;
  const char* name;                  // --view, session "panel", lesson "tab:NAME": "heads"
  std::vector<std::string> aliases;  // other names read as this one ("grid")
  const char* title;                 // the tab's label, or the part's in File > Export...: "Heads"
  View tab;                          // the tab that shows it (itself for a tab)
  ViewScope scope;
  ViewMaps maps;
  const char* shows;                 // what it shows and its numbers, one line (help, tooltips, docs)
  const char* file_stem;             // its part of an exported file's name: "heads"
  // Its files: figure (.png .svg .pdf), .npy, .csv, .json; null: no such file (export says so).
  ViewWriter figure = nullptr, npy = nullptr, csv = nullptr, json = nullptr;
  // Its interactive page (.html, core/export/html_page.h); null: none (export says which views have one).
  ViewWriter html = nullptr;
};

// Every view, in the enum's order.
const std::vector<ViewDescriptor>& all_views();
const ViewDescriptor& view_descriptor(View view);
const char* view_name(View view);
bool is_tab(View view);
// The app's tabs, in tab order.
std::vector<View> tab_views();

// By name or alias; null when unknown.
const ViewDescriptor* find_view(const std::string& name);
// By name or alias; InputError "unknown view 'x' (did you mean y?); expected a, b or c" otherwise.
// `tabs_only` limits the names to the app's tabs.
View parse_view(const std::string& name, bool tabs_only = false);
// Every name and alias (`tabs_only`: of the tabs), names first in the enum's order.
std::vector<std::string> view_names(bool tabs_only = false);
// The views with an .html page, "heads, head, ... or ablation".
std::string html_view_names();
// The --help of --view: one line per view (what it shows; a part names its tab), then the aliases.
std::string view_help(bool tabs_only = false);

}  // namespace hs
