#include "app/gui/actions/export_preview.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <sstream>

#include "app/gui/actions/export_action.h"
#include "core/util/errors.h"

namespace hs::gui {

std::string export_preview_key(const AppState& state, const Derived& derived, int max_side_px, const HeadAblation* ablation) {
  const ExportPanelState& e = state.exporter;
  const ColourScale& c = state.scale;
  std::ostringstream k;
  // What is exported and how it looks; the file's name only through its format (figures: all PNG).
  k << derived.generation << '|' << max_side_px << '|' << (e.what ? int(*e.what) : -1) << '|' << e.role << '|' << int(state.view) << '|' << state.layer << '|'
    << state.head << '|' << e.size << '|' << e.dpi << '|' << e.font_size << '|' << e.slide << '|' << e.show_title << '|' << e.title << '|'
    << e.view_colours << '|' << int(e.colormap) << '|' << int(e.scale_mode) << '|' << int(c.mode) << '|'
    << c.ignore_first_key << '|' << int(c.colormap) << '|' << state.grid.per_head_range << '|' << state.grid.all_layers
    << '|' << state.head_view.layer_range << '|' << (derived.roles != nullptr)
    << '|' << (derived.sweep != nullptr) << '|' << state.average.rollout << '|' << state.ablation.mean << '|';
  for (int q : state.query.queries) k << q << ',';
  if (ablation) k << '|' << reinterpret_cast<uintptr_t>(ablation);  // the ablation result the figure shows
  return k.str();
}

void update_export_preview(AppState& state, const Derived& derived, double now, int max_side_px,
                           const HeadAblation* ablation) {
  ExportPanelState& e = state.exporter;
  const std::string key = export_preview_key(state, derived, max_side_px, ablation);
  if (e.preview && e.preview->key == key) return;
  if (key != e.preview_wanted) {
    e.preview_wanted = key;
    e.preview_wanted_since = now;
  }
  if (e.preview && now - e.preview_wanted_since < kPreviewRestSeconds) return;  // still typing
  auto p = std::make_shared<ExportPreview>();
  p->key = key;
  p->version = (e.preview ? e.preview->version : 0) + 1;
  try {
    p->png = export_preview_png(state, derived, 0.5, ablation);
    p->pixels = decode_png(p->png);
    p->width_pt = p->pixels.width;  // 72 dpi: a pixel a point
    p->height_pt = p->pixels.height;
    const int side = std::max(p->pixels.width, p->pixels.height);
    if (max_side_px > 0 && side > max_side_px) {
      // Larger than the box: drawn again at the resolution that fits, so text stays sharp.
      p->scale = 0.5 * double(max_side_px) / double(side);
      p->png = export_preview_png(state, derived, p->scale, ablation);
      p->pixels = decode_png(p->png);
    }
  } catch (const std::exception& err) {
    p->png.clear();
    p->pixels = {};
    p->error = err.what();
  }
  e.preview = std::move(p);
}

}  // namespace hs::gui
