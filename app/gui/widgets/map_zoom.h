#pragma once
// Zoom and pan on a heatmap: the wheel zooms around the pointer, a drag pans, a double-click goes
// back to the whole map; a minimap shows where the view is. The region's cells come from
// core/analysis/map_region.h (exact, or finer block maxima, also in long-input mode).
#include "app/gui/state/zoom_state.h"
#include "app/gui/widgets/heatmap_widget.h"
#include "core/analysis/map_region.h"

namespace hs::gui {

// The tokens `z` shows of a map of `tokens` tokens a side (at least one).
TokenRegion zoom_region(const MapZoom& z, int tokens);

// Smallest span: a few tokens a side, each cell large.
float min_zoom_span(int tokens);

// Zooms by `steps` wheel notches (positive: in) keeping the point at fraction (u, v) of the
// visible region where it is.
void zoom_at(MapZoom& z, float u, float v, float steps, int tokens);

// Wheel, drag and double-click on the heatmap `hit` (drawn this frame) change `z`. True when it
// changed.
bool zoom_by_mouse(MapZoom& z, const HeatmapHit& hit, int tokens);

// The whole map small, `side` pixels a side, at the cursor (beside the zoomed map, never over its
// cells), the visible part outlined. Draws nothing when not zoomed.
void draw_minimap(const UiContext& ui, const HeatmapSpec& whole, const MapZoom& z, float side);

// Cells a region may have a side: about the box's pixels, in steps of 64, at most 1024.
int zoom_max_cells(float box_pixels);

}  // namespace hs::gui
