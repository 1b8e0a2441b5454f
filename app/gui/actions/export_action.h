#pragma once
// What "Export..." and "Copy data" do with the current view (core/export/export.h does the
// drawing and the files). Run by the main loop outside any ImGui window: errors are caught
// there and go to the status line.
#include <string>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/status.h"
#include "core/export/export.h"

namespace hs::gui {

// The export matching what is on screen (the view table, state/views.h): the grid (all heads of
// the layer), the selected head, the difference table or the sweep, in the on-screen colour
// scale (linear / log / per-row, first key, colormap).
ExportSpec export_spec_for(const AppState& state, const Derived& derived, const std::string& path);

// folder + file name ("" folder: the file name alone).
std::string export_path(const ExportPanelState& e);

// Writes the file; returns "wrote PATH". Throws hs::Error.
std::string save_export(const AppState& state, const Derived& derived);

// CSV of the current map (one head, or the difference table). Throws hs::Error.
std::string current_csv(const AppState& state, const Derived& derived);

}  // namespace hs::gui

namespace hs::gui {

// Carries out save/copy requests set by the export panel; the outcome goes to `status`.
void handle_export_requests(AppState& state, const Derived* derived, StatusInfo& status);

}  // namespace hs::gui
