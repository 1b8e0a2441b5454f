#include "app/gui/actions/export_action.h"

#include <imgui.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <new>

#include "core/analysis/induction_probe.h"
#include "core/util/errors.h"

namespace hs::gui {

ExportSpec export_spec_for(const AppState& state, const Derived& derived, const std::string& path) {
  const ViewInfo& v = view_info(state.view);
  ExportSpec spec;
  spec.path = path;
  spec.layer = state.layer;
  spec.view = v.export_view;
  if (spec.view == ExportView::difference && shown_pair_measure(state) == PairMeasure::distance)
    spec.view = ExportView::distance;  // the measure the table is coloured by
  spec.head = v.export_selected_head ? state.head : -1;
  const RunAnalysis& a = *derived.analysis;
  const size_t layer = size_t(std::clamp(state.layer, 0, std::max(a.run.n_layers() - 1, 0)));
  const float layer_max = layer < a.layer_max.size()
                              ? (state.scale.ignore_first_key ? a.layer_max_skip_first[layer] : a.layer_max[layer])
                              : 0.0f;
  spec.colours = view_colour_scale(state, state.view, layer_max);  // as shown: scale, first key, colormap, range
  return spec;
}

std::string export_path(const ExportPanelState& e) {
  if (e.folder.empty()) return e.file_name;
  return (std::filesystem::path(e.folder) / e.file_name).string();
}

std::string save_export(const AppState& state, const Derived& derived) {
  const std::string path = export_path(state.exporter);
  // The JSON holds the head roles: with induction, measured now if the Head roles view has not yet.
  const RunAnalysis* a = derived.analysis.get();
  std::shared_ptr<RunAnalysis> with_roles;
  if (export_format_of(path) == ExportFormat::json && !a->roles.empty() && !a->roles.induction_measured) {
    with_roles = std::make_shared<RunAnalysis>(*a);
    with_roles->roles = derived.roles ? *derived.roles : with_induction(a->roles, measure_induction(a->request));
    a = with_roles.get();
  }
  export_view(*a, derived.sweep.get(), export_spec_for(state, derived, path));
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  return "wrote " + (ec ? path : absolute.string());
}

std::string current_csv(const AppState& state, const Derived& derived) {
  ExportSpec spec = export_spec_for(state, derived, "clipboard.csv");
  if (spec.view == ExportView::heatmap) spec.head = state.head;
  return export_bytes(*derived.analysis, derived.sweep.get(), spec);
}

}  // namespace hs::gui

namespace hs::gui {

void handle_export_requests(AppState& state, const Derived* derived, StatusInfo& status) {
  ExportPanelState& e = state.exporter;
  const bool save = e.save_requested, copy = e.copy_requested;
  e.save_requested = e.copy_requested = false;
  if (!derived || (!save && !copy)) return;
  try {
    if (save) status.last_export = save_export(state, *derived);
    if (copy) {
      const std::string csv = current_csv(state, *derived);
      ImGui::SetClipboardText(csv.c_str());
      status.last_export = "copied " + std::to_string(csv.size()) + " bytes of CSV to the clipboard";
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
