#include "app/gui/actions/export_action.h"

#include "app/gui/actions/clipboard_image.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "app/gui/widgets/labels.h"
#include "core/analysis/target_pattern.h"
#include "core/export/contrast_export.h"
#include "core/render/figure.h"
#include "core/render/heatmap_figure.h"
#include "core/render/font_family.h"
#include "core/analysis/induction_probe.h"
#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::gui {
namespace {

// The view's own export: the grid (the overview when it shows every layer), the selected head,
// the difference table or the sweep.
ExportSpec view_spec(const AppState& state, const Derived& derived, View view, const std::string& path) {
  ExportSpec spec;
  spec.path = path;
  spec.layer = state.layer;
  spec.view = view;
  spec.head = view_descriptor(view).scope == ViewScope::head ? state.head : -1;
  const RunAnalysis& a = *derived.analysis;
  // What the view shows beyond a layer and a head: the query rows, the rollout, every role, the mode.
  if (view == View::query) spec.queries = shown_queries(state, a.run.n_tokens());
  if (view == View::average && state.average.rollout && a.rollout.size() > 0) spec.view = View::rollout;
  if (view == View::roles) spec.role = -1;
  if (view == View::width && is_pattern_name(state.width.show)) spec.pattern = state.width.show;  // the fit shown
  // A view of one layer exports that layer, in data files too (headscope-cli's --layer L).
  if (view != View::roles && view != View::ablation) spec.layers = LayerScope::one;
  if (view == View::ablation) spec.ablation_mode = state.ablation.mean ? AblationMode::mean : AblationMode::zero;
  const size_t layer = size_t(std::clamp(state.layer, 0, std::max(a.run.n_layers() - 1, 0)));
  const float layer_max = layer < a.layer_max.size()
                              ? (state.scale.ignore_first_key ? a.layer_max_skip_first[layer] : a.layer_max[layer])
                              : 0.0f;
  spec.colours = view_colour_scale(state, view, layer_max);  // as shown: scale, first key, colormap, range
  return spec;
}

// The head roles (one role's layers x heads map, or every role as data) and the attention
// rollout cover the whole model: headscope-cli export --view roles --role R / --view rollout, in
// the screen's colormap and scale (--colormap, --color-scale, --ignore-first-key).
ExportSpec whole_model_spec(const AppState& state, View view, const std::string& path) {
  ExportSpec spec;
  spec.path = path;
  spec.view = view;
  spec.colours = state.scale;
  spec.colours.per_map = false;
  spec.colours.fixed_max = 0.0f;
  if (view == View::roles) spec.role = std::clamp(state.exporter.role, -1, kHeadRoleCount - 1);
  return spec;
}

// "previous_token", ...: the role in a file name.
const char* role_file_name(int role) {
  constexpr const char* kNames[kHeadRoleCount] = {"previous_token", "first_token", "bos",       "self",
                                                  "local",          "duplicate_token", "induction", "broadness"};
  return role >= 0 && role < kHeadRoleCount ? kNames[role] : "all";
}

}  // namespace

const std::vector<View>& export_dialog_views() {
  static const std::vector<View> views = [] {
    std::vector<View> v;
    for (const ViewDescriptor& d : all_views())
      if (d.figure) v.push_back(d.view);  // every view export writes (the contrast: its own path)
    return v;
  }();
  return views;
}

ExportSpec export_spec_for(const AppState& state, const Derived& derived, const std::string& path) {
  const ExportPanelState& e = state.exporter;
  ExportSpec spec;
  if (!e.what) {  // this view as shown
    spec = view_spec(state, derived, state.view, path);
    if (state.view == View::heads && state.grid.all_layers && derived.run().n_layers() > 1) {
      spec.view = View::overview;
      spec.layers = LayerScope::every;
    }
  } else if (*e.what == View::roles || *e.what == View::rollout || *e.what == View::sweep) {
    spec = whole_model_spec(state, *e.what, path);  // the dialog's role; the screen's colours
  } else {  // a tab, or a part of one, with the tab's settings
    spec = view_spec(state, derived, view_descriptor(*e.what).tab, path);
    if (!is_tab(*e.what)) spec.view = *e.what;
    if (*e.what == View::overview) spec.layers = LayerScope::every;
  }
  // The dialog's settings, as headscope-cli's flags take them (--dpi, --size, --font-size, ...).
  if (!(e.dpi >= 10 && e.dpi <= 2400)) throw InputError("DPI (" + std::to_string(e.dpi) + ") must be from 10 to 2400");
  spec.scale = double(e.dpi) / (72.0 * kPngPixelsPerPoint);
  if (e.slide) apply_figure_preset(FigurePreset::slide, spec.style);  // as --preset slide; size and font size win
  if (!e.size.empty() && !parse_page_size(e.size, double(e.dpi) / 72.0, spec.style)) {
    throw InputError("size '" + e.size + "' needs a unit: in, cm, mm, pt or px (e.g. 3.25x3.25in)");
  }
  if (e.font_size != 0) {
    if (!(e.font_size >= 4 && e.font_size <= 72)) throw InputError("font size must be from 4 to 72 points");
    spec.style.font_size = e.font_size;
  }
  spec.style.show_title = e.show_title;
  spec.style.space_mark = state.space_mark;  // token labels as the screen shows them
  spec.style.title = e.show_title ? e.title : std::string();
  // The settings file's export_font (as a style file's "font"): an unknown family says so.
  if (!e.font.empty()) spec.style.font = check_font_family(e.font);
  if (!e.view_colours) {
    spec.colours.colormap = e.colormap;
    spec.colours.mode = e.scale_mode;
  }
  return spec;
}

std::string export_path(const ExportPanelState& e) {
  if (e.folder.empty()) return e.file_name;
  return (std::filesystem::path(e.folder) / e.file_name).string();
}

std::string default_export_name(const AppState& state, const Derived& derived, const std::string& extension) {
  const AttentionRun& run = derived.run();
  std::string model;
  for (char c : run.info.name.empty() ? run.info.kind : run.info.name) {
    const bool keep = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    if (keep) model += c;
    else if (!model.empty() && model.back() != '_') model += '_';
  }
  while (!model.empty() && model.back() == '_') model.pop_back();
  if (model.empty()) model = "headscope";
  const ExportSpec spec = export_spec_for(state, derived, "x." + extension);
  const ViewDescriptor& v = view_descriptor(spec.view);
  const std::string layer = "_L" + std::to_string(spec.layer);
  std::string what;
  if (spec.view == View::roles) {
    what = std::string("_roles_") + role_file_name(spec.role);
  } else if (!state.exporter.what && state.view == View::contrast) {
    what = layer + "_h" + std::to_string(state.head) + "_contrast";
  } else if (v.scope == ViewScope::model) {
    what = std::string("_") + v.file_stem;
  } else if (v.scope == ViewScope::layer) {
    what = layer + "_" + v.file_stem;
  } else {  // one head, or (a heatmap without one) the layer's heads
    what = layer + (spec.head >= 0 ? "_h" + std::to_string(spec.head) : "_heads");
  }
  return model + what + "." + extension;
}

const HeadAblation* current_ablation(const AppState& state, const AblationStatus& status) {
  const AblationMode mode = state.ablation.mean ? AblationMode::mean : AblationMode::zero;
  if (!status.result || status.mode != mode || !same_model_request(status.request, state.request)) return nullptr;
  return status.result.get();
}

namespace {

// The Contrast view exports two runs (core/export/contrast_export.h), as `headscope-cli compare
// --out` does: the selected head's figure, or the change of every head as data. Null for any other
// export; an InputError while sentence B has no result.
std::optional<std::string> contrast_bytes(const AppState& state, const Derived& derived, const std::string& path) {
  if (state.exporter.what || state.view != View::contrast) return std::nullopt;
  const ContrastRun* c = derived.contrast.get();
  if (!state.contrast.model_b.empty() && (!c || !c->answers(contrast_ask(state)) || !c->analysis)) {
    throw InputError(c && c->answers(contrast_ask(state)) ? "model B (" + state.contrast.model_b + ") has no result: " + c->error
                                                          : "model B (" + state.contrast.model_b + ") is still being compared: export when the view shows it");
  }
  if (!c || !c->analysis) {
    throw InputError(c ? "the contrast sentence has no result: " + c->error
                       : "the Contrast view has no sentence B yet: type one under \"compare with\"");
  }
  const ExportSpec spec = export_spec_for(state, derived, path);  // the dialog's size, fonts, title, colours
  ContrastExport e;
  e.path = path;
  e.layer = state.layer, e.head = state.head;
  e.colours.colormap = spec.colours.colormap;
  e.style = spec.style;
  e.scale = spec.scale;
  e.large_page = spec.large_page;  // .html: the contrast page, as compare --out page.html
  if (c->is_models()) {  // what `headscope-cli compare --model A --model-b B --out` writes
    e.models = &c->models;
    return contrast_export_bytes(*c->analysis_a, *c->analysis, c->result, e);
  }
  return contrast_export_bytes(*derived.analysis, *c->analysis, c->result, e);
}

// The app never runs an ablation on the UI thread: its export needs the view's own result.
void check_ablation(const ExportSpec& spec, const HeadAblation* ablation) {
  if (spec.view == View::ablation && !ablation)
    throw InputError("the Ablation view has no result for this sentence and mode yet: run it there first");
}

}  // namespace

std::string save_export(const AppState& state, const Derived& derived, const HeadAblation* ablation) {
  const std::string path = export_path(state.exporter);
  if (const std::optional<std::string> bytes = contrast_bytes(state, derived, path)) {
    write_file_atomic(path, *bytes);
    return "wrote " + path;
  }
  // The JSON holds the head roles: with induction, measured now if the Head roles view has not yet.
  const RunAnalysis* a = derived.analysis.get();
  std::shared_ptr<RunAnalysis> with_roles;
  ExportSpec spec = export_spec_for(state, derived, path);
  std::vector<std::string> notes;  // the layout's (labels asked for that had to be thinned): said after "wrote"
  spec.notes = &notes;
  const bool needs_roles = export_format_of(path) == ExportFormat::json || spec.view == View::roles;
  if (needs_roles && !a->roles.empty() && !a->roles.induction_measured) {
    with_roles = std::make_shared<RunAnalysis>(*a);
    with_roles->roles = derived.roles ? *derived.roles : with_induction(a->roles, measure_induction(a->request));
    a = with_roles.get();
  }
  check_ablation(spec, ablation);
  export_view(*a, derived.sweep.get(), spec, ablation);
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::string said = "wrote " + (ec ? path : absolute.string()) + (derived.run().compact() ? " (block maxima)" : "");
  if (!notes.empty()) said += "; note: " + notes.front();
  return said;
}

bool copies_maps(const AppState& state, const Derived& derived) {
  AppState copy = state;
  copy.exporter.what.reset();
  const View v = export_spec_for(copy, derived, "clipboard.csv").view;
  return v == View::heatmap || v == View::heads || v == View::head;
}

CopiedData copy_data(const AppState& state, const Derived& derived, bool whole_layer, const HeadAblation* ablation) {
  AppState copy = state;
  copy.exporter.what.reset();
  if (const std::optional<std::string> bytes = contrast_bytes(copy, derived, "clipboard.csv")) {
    return {*bytes, "copied the change of every head (A vs B: layer, head, change, ...) to the clipboard as CSV (" +
                        format_bytes(int64_t(bytes->size())) + ")"};
  }
  ExportSpec spec = export_spec_for(copy, derived, "clipboard.csv");
  const bool maps = spec.view == View::heatmap || spec.view == View::heads || spec.view == View::head;
  const AttentionRun& run = derived.run();
  const int T = run.n_tokens(), H = run.n_heads();
  std::string what = figure_model_name(run) + " \u00b7 layer " + std::to_string(spec.layer);
  if (maps && whole_layer) {
    spec.view = View::heads, spec.head = -1, spec.layers = LayerScope::one, spec.csv_layout = CsvLayout::tidy;
    what += " \u00b7 all " + std::to_string(H) + " heads \u00b7 " + std::to_string(H) + " x " + std::to_string(T) + " x " +
            std::to_string(T) + " (a row per cell: layer, head, query, key, tokens, weight)";
  } else if (maps) {
    spec.view = View::head, spec.head = std::clamp(state.head, 0, std::max(H - 1, 0));
    what += " \u00b7 head " + std::to_string(spec.head) + " \u00b7 " + std::to_string(T) + " x " + std::to_string(T) +
            " (query x key)";
  } else if (spec.view == View::difference || spec.view == View::distance) {
    what += " \u00b7 head " + std::string(view_name(spec.view)) + " table \u00b7 " + std::to_string(H) + " x " +
            std::to_string(H);
  } else {
    what = figure_model_name(run) + " \u00b7 the " + view_name(spec.view) + " view's numbers";
  }
  check_ablation(spec, ablation);
  CopiedData out;
  out.csv = export_bytes(*derived.analysis, derived.sweep.get(), spec, ablation);
  out.message = "copied " + what + " to the clipboard as CSV (" + format_bytes(int64_t(out.csv.size())) + ")";
  return out;
}

std::string current_csv(const AppState& state, const Derived& derived, const HeadAblation* ablation) {
  return copy_data(state, derived, false, ablation).csv;
}

std::string export_preview_png(const AppState& state, const Derived& derived, double scale, const HeadAblation* ablation) {
  if (!state.exporter.what && state.view == View::contrast) {
    AppState at_scale = state;
    at_scale.exporter.dpi = float(scale * 72.0 * kPngPixelsPerPoint);  // a preview's resolution, not the file's
    return *contrast_bytes(at_scale, derived, "preview.png");
  }
  ExportSpec spec = export_spec_for(state, derived, "preview.png");
  spec.scale = scale;  // a preview's resolution, not the file's
  check_ablation(spec, ablation);
  const RunAnalysis* a = derived.analysis.get();
  RunAnalysis with_roles;
  if (spec.view == View::roles && derived.roles) {  // the roles the file gets (save_export)
    with_roles = *a;
    with_roles.roles = *derived.roles;
    a = &with_roles;
  }
  return export_bytes(*a, derived.sweep.get(), spec, ablation);
}

}  // namespace hs::gui

namespace hs::gui {

std::string extension_of(const std::string& name) {
  std::string ext = std::filesystem::path(name).extension().string();
  if (!ext.empty()) ext.erase(0, 1);
  return ext;
}

void start_export_dialog(AppState& state, const Derived& derived) {
  ExportPanelState& e = state.exporter;
  e.dialog_open = true;
  e.confirm_path.clear();
  std::string ext = extension_of(e.file_name);
  try {
    export_format_of("x." + ext);
  } catch (const Error&) {
    ext = "pdf";
  }
  e.file_name = default_export_name(state, derived, ext);
}

void take_clipboard_outcome(StatusInfo& status) {
  // A clipboard copy under way (its own thread): its outcome, once it has one.
  if (status.clipboard_copy && status.clipboard_copy->done.load(std::memory_order_acquire)) {
    status.last_export = status.clipboard_copy->message;
    status.export_failed = !status.clipboard_copy->ok;
    status.clipboard_copy.reset();
  }
}

namespace {

// The dialog's Save: its file, unless that exists and the replacement is not confirmed yet.
void save_or_ask(AppState& state, const Derived& derived, StatusInfo& status, const HeadAblation* ablation) {
  ExportPanelState& e = state.exporter;
  const std::string path = export_path(e);
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (exists && !(e.overwrite_confirmed && e.confirm_path == path)) {
    // Never overwrite silently: the dialog asks, and nothing is written until it is answered.
    e.confirm_path = path;
    e.overwrite_confirmed = false;
    e.dialog_open = true;
    status.last_export = path + " exists: replace it, or choose another name";
    return;
  }
  e.confirm_path.clear();
  e.overwrite_confirmed = false;
  status.last_export = save_export(state, derived, ablation);
  e.dialog_open = false;
}

void copy_image(const AppState& state, const Derived& derived, StatusInfo& status, const HeadAblation* ablation) {
  AppState view = state;
  view.exporter.what.reset();
  const ExportSpec spec = export_spec_for(view, derived, "clipboard.png");
  check_ablation(spec, ablation);
  const std::optional<std::string> contrast = contrast_bytes(view, derived, "clipboard.png");
  status.clipboard_copy =
      start_png_copy(contrast ? *contrast : export_bytes(*derived.analysis, derived.sweep.get(), spec, ablation));
  status.last_export = "copying the view to the clipboard\u2026";
}

}  // namespace

void run_export(ExportAct act, AppState& state, const Derived& derived, StatusInfo& status, const HeadAblation* ablation) {
  try {
    switch (act) {
      case ExportAct::save: save_or_ask(state, derived, status, ablation); break;
      case ExportAct::copy_data:
      case ExportAct::copy_layer: {
        const CopiedData data = copy_data(state, derived, act == ExportAct::copy_layer, ablation);
        ImGui::SetClipboardText(data.csv.c_str());
        status.last_export = data.message;
        break;
      }
      case ExportAct::copy_image: copy_image(state, derived, status, ablation); break;
    }
    status.export_failed = false;
  } catch (const hs::Error& err) {
    status.last_export = std::string("export failed: ") + err.what();
    status.export_failed = true;
  } catch (const std::bad_alloc&) {
    status.last_export = "export failed: out of memory (try a smaller figure, a shorter sentence or fewer heads)";
    status.export_failed = true;
  } catch (const std::exception& err) {
    status.last_export = std::string("export failed: ") + err.what();
    status.export_failed = true;
  }
}

}  // namespace hs::gui
