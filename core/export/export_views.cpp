// The --view names (core/export/export.h): one table for parse, name, the CLI's --help and the
// app's views (app/gui/state/views.h).
#include <string>
#include <vector>

#include "core/export/export.h"
#include "core/util/errors.h"
#include "core/util/format.h"
#include "core/util/suggest.h"

namespace hs {

const std::vector<ExportViewName>& export_view_names() {
  static const std::vector<ExportViewName> names = {
      {ExportView::heads, "heads", "", "every head of --layer as a grid (data: every layer, or --layer's)"},
      {ExportView::head, "head", "", "one head (--head, default 0) of --layer"},
      {ExportView::query, "query", "",
       "where the --query tokens look (rows summed), head by head: bars over the keys (data [layers, H, T])"},
      {ExportView::difference, "difference", "", "the head-difference table, mean |A_a - A_b| over cells, [H, H]"},
      {ExportView::average, "average", "", "the layer's mean over heads, [T, T] (--rollout: the attention rollout)"},
      {ExportView::width, "width", "",
       "head-count sweep plots (synthetic layer) and each head's singular values (data [layers, H, T])"},
      {ExportView::roles, "roles", "", "every head role of every head (--role R: one role's layers x heads map)"},
      {ExportView::ablation, "ablation", "",
       "change in next-token loss with each head knocked out, [layers, heads] (models with a loss)"},
      {ExportView::heatmap, "heatmap", "heads", "heads without --head, head with it"},
      {ExportView::overview, "overview", "heads", "every head of every layer in one figure (heads --all-layers)"},
      {ExportView::distance, "distance", "difference", "the head-pair table in mean total variation per query row"},
      {ExportView::rollout, "rollout", "average", "the attention rollout through every layer (average --rollout)"},
      {ExportView::sweep, "sweep", "width", "the head-count sweep plots alone"},
  };
  return names;
}

std::string export_view_help() {
  std::string app, older;
  for (const ExportViewName& n : export_view_names()) {
    std::string line = std::string(n.name) + ": " + n.help;
    if (*n.alias_of) older += "\n  " + line + " [part of " + n.alias_of + "]";
    else app += "\n  " + line;
  }
  return "The view, as the app names it:" + app + "\nOlder names, kept:" + older;
}

ExportView parse_export_view(const std::string& name) {
  std::vector<std::string> known;
  for (const ExportViewName& n : export_view_names()) {
    if (name == n.name) return n.view;
    known.emplace_back(n.name);
  }
  throw InputError("unknown view '" + excerpt(name) + "'" + did_you_mean(name, known) + "; expected " + or_list(known));
}

const char* export_view_name(ExportView view) {
  for (const ExportViewName& n : export_view_names())
    if (n.view == view) return n.name;
  return "?";
}

CsvLayout parse_csv_layout(const std::string& name) {
  if (name == "auto") return CsvLayout::automatic;
  if (name == "tidy") return CsvLayout::tidy;
  if (name == "matrix") return CsvLayout::matrix;
  throw InputError("--csv-layout '" + name + "' is not a layout; expected auto, tidy or matrix");
}

}  // namespace hs
