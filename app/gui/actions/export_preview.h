#pragma once
// The Export dialog's preview: the export's own figure (export_preview_png: the same core code
// that writes the file, as a PNG at 72 dpi, or at the resolution that fits the dialog's box when
// that is smaller), decoded to pixels for a texture shown one texel a pixel, so the preview shows
// exactly what will be written: title, labels, colour bar, page ratio. Cached by the settings
// that change the figure: re-rendered only once they have rested for kPreviewRestSeconds, so
// typing a title or a size does not render on every keystroke.
#include <string>

#include "app/gui/state/app_state.h"
#include "app/gui/state/derived.h"
#include "core/analysis/head_ablation.h"
#include "core/render/png_pixels.h"

namespace hs::gui {

constexpr double kPreviewRestSeconds = 0.25;

struct ExportPreview {
  std::string key;     // the settings it was rendered for (export_preview_key)
  uint64_t version = 0;  // changes with every render (the texture cache's version)
  std::string png;     // the preview's PNG bytes, as export_preview_png made them
  RgbaPixels pixels;   // decoded
  double width_pt = 0, height_pt = 0;  // the figure's page in points
  double scale = 0.5;                  // the PNG's (ExportSpec::scale): 0.5 is 72 dpi
  std::string error;   // why there is no figure ("" when png holds one)
};

// Everything the preview depends on: the run's generation, the dialog's settings and the box.
std::string export_preview_key(const AppState& state, const Derived& derived, int max_side_px,
                               const HeadAblation* ablation = nullptr);

// Called every frame the dialog is open (`now`: seconds). Renders when the key has not changed for
// kPreviewRestSeconds (at once when there is no preview yet): at 72 dpi, and again at the scale
// that fits `max_side_px` (> 0) when 72 dpi is larger. Errors go into preview->error.
// `ablation`: the Ablation view's current result (export_action.h's current_ablation), or null.
void update_export_preview(AppState& state, const Derived& derived, double now, int max_side_px = 0,
                           const HeadAblation* ablation = nullptr);

}  // namespace hs::gui
