#pragma once
// The part of a map a view shows: [x0, x0 + span] x [y0, y0 + span] as fractions of the map's
// side (keys across, queries down). span 1: the whole map.
#include <algorithm>
#include <cmath>

namespace hs::gui {

struct MapZoom {
  float x0 = 0, y0 = 0, span = 1;
  // The map it belongs to: another head opened starts on the whole map (-1: the first one shown,
  // e.g. --zoom).
  int layer = -1, head = -1;
  bool zoomed() const { return span < 1.0f; }
};

// `z` with every value in range: the span from min_span (at least 1e-6) to 1, the corner inside
// the map; a value that is not finite (nan from a flag, a file or a bug) gives the whole map.
// Region and drawing code take their zoom through this rather than trusting (or asserting) it.
// The map it belongs to (layer, head) is kept.
inline MapZoom zoom_in_range(const MapZoom& z, float min_span = 0.0f) {
  MapZoom out;
  out.layer = z.layer, out.head = z.head;
  if (!std::isfinite(z.x0) || !std::isfinite(z.y0) || !std::isfinite(z.span)) return out;
  const float lo = std::isfinite(min_span) ? std::clamp(min_span, 1e-6f, 1.0f) : 1e-6f;
  out.span = std::clamp(z.span, lo, 1.0f);
  out.x0 = std::clamp(z.x0, 0.0f, 1.0f - out.span);
  out.y0 = std::clamp(z.y0, 0.0f, 1.0f - out.span);
  return out;
}

// `z` for the map (layer, head): kept when it is that map's (or not yet anyone's), else reset.
inline void zoom_follow(MapZoom& z, int layer, int head) {
  if ((z.layer >= 0 && z.layer != layer) || (z.head >= 0 && z.head != head)) z = MapZoom{};
  z.layer = layer, z.head = head;
}

}  // namespace hs::gui
