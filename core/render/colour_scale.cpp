#include "core/render/colour_scale.h"

#include <cmath>

namespace hs {

float colour_scale_max(const std::vector<const Map*>& maps) {
  float m = 0.0f;
  for (const Map* map : maps) {
    if (map && map->size() > 0) {
      const float a = map->cwiseAbs().maxCoeff();
      if (a > m) m = a;  // NaN never wins
    }
  }
  return m > 0.0f && std::isfinite(m) ? m : 1.0f;
}

float colour_t(Colormap cm, float value, float scale_max) {
  const float r = value / scale_max;
  float t = colormap_is_diverging(cm) ? 0.5f + 0.5f * r : r;
  if (!(t > 0.0f)) t = 0.0f;  // also NaN
  if (t > 1.0f) t = 1.0f;
  return t;
}

Rgb8 cell_colour(Colormap cm, float value, float scale_max) { return colormap_lookup(cm, colour_t(cm, value, scale_max)); }

}  // namespace hs
