#pragma once
// What "Export..." and "Copy data" do with the current view (core/export/export.h does the
// drawing and the files). Run by the main loop outside any ImGui window: errors are caught
// there and go to the status line.
#include <string>
#include <vector>

#include "app/gui/state/ablation_status.h"
#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/status.h"
#include "core/export/export.h"

namespace hs::gui {

// The views File > Export... offers besides "this view as shown" (state.exporter.what): every view
// of the registry that export writes (core/export/view_registry.h); --export-dialog takes their names.
const std::vector<View>& export_dialog_views();

// The export matching what is on screen (core/export/view_registry.h): the grid (all heads of
// the layer; the overview when the grid shows every layer), the selected head, the difference
// table or the sweep, in the on-screen colour scale (linear / log / per-row, first key,
// colormap); or what the Export dialog chose (state.exporter.what), with its size, DPI, font
// size, title and colours, as headscope-cli's flags of the same names take them. Throws
// InputError for a bad size, DPI or font size.
ExportSpec export_spec_for(const AppState& state, const Derived& derived, const std::string& path);

// folder + file name ("" folder: the file name alone).
std::string export_path(const ExportPanelState& e);

// A name that says what is exported: "stories260K_L3_heads.pdf", "stories260K_L3_h2.png",
// "stories260K_overview.svg", "synthetic_d_model_8_L0_distance.pdf", "..._sweep.png".
std::string default_export_name(const AppState& state, const Derived& derived, const std::string& extension);

// The export as PNG bytes at `scale` (0.5: 72 dpi, one pixel a point), for the dialog's preview.
// Throws hs::Error.
// `ablation`: the Ablation view's result for what is on screen (current_ablation), or null (its
// export then asks for a run first).
std::string export_preview_png(const AppState& state, const Derived& derived, double scale = 0.5,
                               const HeadAblation* ablation = nullptr);

// Writes the file; returns "wrote PATH". Throws hs::Error.
std::string save_export(const AppState& state, const Derived& derived, const HeadAblation* ablation = nullptr);

// The ablation result the Ablation view shows as current (made for this request and mode), or null.
const HeadAblation* current_ablation(const AppState& state, const AblationStatus& status);

// What "Copy data" puts on the clipboard, and the status line that says what it is.
struct CopiedData {
  std::string csv;
  std::string message;  // "copied stories260K · layer 3 · head 2 · 12 x 12 (query x key) to the clipboard as CSV (1.5 KiB)"
};
// CSV of the current map (the selected head, or the view's table: difference, sweep, ...); with
// `whole_layer` and a view of maps, every head of the layer (tidy CSV, a row per cell). Throws hs::Error.
CopiedData copy_data(const AppState& state, const Derived& derived, bool whole_layer = false,
                     const HeadAblation* ablation = nullptr);
// Whether the current view copies attention maps (then the layer can be copied too).
bool copies_maps(const AppState& state, const Derived& derived);
// copy_data(state, derived).csv.
std::string current_csv(const AppState& state, const Derived& derived, const HeadAblation* ablation = nullptr);

}  // namespace hs::gui

namespace hs::gui {

enum class ExportAct { save, copy_data, copy_layer, copy_image };

// Carries out an export the panel asked for (app/gui/state/commands.h); the outcome goes to
// `status`. save: the dialog's file; onto an existing file it writes nothing: it sets
// exporter.confirm_path and waits until exporter.overwrite_confirmed is set for that path (the
// dialog's "Replace"). copy_data: the current map's CSV to the clipboard (copy_layer: every head of the
// layer, tidy), the status line naming what was copied. copy_image: the view's
// figure as PNG to the clipboard, on its own thread (take_clipboard_outcome reports it).
void run_export(ExportAct act, AppState& state, const Derived& derived, StatusInfo& status,
                const HeadAblation* ablation = nullptr);

// A clipboard copy under way: its outcome into the status line once it has one (every frame).
void take_clipboard_outcome(StatusInfo& status);

// "png" for "a/b.png"; "" without an extension.
std::string extension_of(const std::string& name);

// Opens the Export dialog on `derived` (Ctrl+E, --export-dialog): the file name follows the view.
void start_export_dialog(AppState& state, const Derived& derived);

}  // namespace hs::gui
