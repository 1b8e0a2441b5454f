#pragma once
// The part of a map a view shows: [x0, x0 + span] x [y0, y0 + span] as fractions of the map's
// side (keys across, queries down). span 1: the whole map.
namespace hs::gui {

struct MapZoom {
  float x0 = 0, y0 = 0, span = 1;
  bool zoomed() const { return span < 1.0f; }
};

}  // namespace hs::gui
