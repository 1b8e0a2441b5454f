#pragma once
// The part of a map a view shows: [x0, x0 + span] x [y0, y0 + span] as fractions of the map's
// side (keys across, queries down). span 1: the whole map.
namespace hs::gui {

struct MapZoom {
  float x0 = 0, y0 = 0, span = 1;
  // The map it belongs to: another head opened starts on the whole map (-1: the first one shown,
  // e.g. --zoom).
  int layer = -1, head = -1;
  bool zoomed() const { return span < 1.0f; }
};

// `z` for the map (layer, head): kept when it is that map's (or not yet anyone's), else reset.
inline void zoom_follow(MapZoom& z, int layer, int head) {
  if ((z.layer >= 0 && z.layer != layer) || (z.head >= 0 && z.head != head)) z = MapZoom{};
  z.layer = layer, z.head = head;
}

}  // namespace hs::gui
