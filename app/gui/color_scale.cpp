#include "app/gui/color_scale.h"

#include <algorithm>
#include <cmath>

#include "core/render/colour_scale.h"

namespace hs::gui {

ScaleRange scale_range(const ScaleSettings& settings, float max_value) {
  ScaleRange r;
  r.mode = settings.mode;
  r.skip_first_column = settings.ignore_first_column;
  const float hi = (max_value > 0.0f && std::isfinite(max_value)) ? max_value : 1.0f;
  switch (settings.mode) {
    case ScaleMode::linear: r.lo = 0.0f, r.hi = hi; break;
    case ScaleMode::log: r.lo = hi * std::pow(10.0f, -kLogDecades), r.hi = hi; break;
    case ScaleMode::row_normalised: r.lo = 0.0f, r.hi = 1.0f; break;
  }
  return r;
}

float scale_unit(const ScaleRange& range, float value, float row_max) {
  switch (range.mode) {
    case ScaleMode::linear:
      // The exporter's rule (core/render/colour_scale.h): t = v / scale_max, lo is always 0.
      return colour_t(Colormap::viridis, value, range.hi);
    case ScaleMode::log:
      // t = log(v / lo) / log(hi / lo); v <= lo -> 0
      if (!(value > range.lo)) return 0.0f;
      return std::log(value / range.lo) / std::log(range.hi / range.lo);
    case ScaleMode::row_normalised:
      return row_max > 0.0f ? value / row_max : 0.0f;
  }
  return 0.0f;
}

Map scale_to_unit(const Map& map, const ScaleRange& range) {
  Map t(map.rows(), map.cols());  // [rows, cols]
  const Eigen::Index first = (range.skip_first_column && map.cols() > 1) ? 1 : 0;
  for (Eigen::Index i = 0; i < map.rows(); ++i) {
    const float row_max = map.cols() > first ? map.row(i).tail(map.cols() - first).maxCoeff() : 0.0f;
    for (Eigen::Index j = 0; j < map.cols(); ++j) t(i, j) = std::clamp(scale_unit(range, map(i, j), row_max), 0.0f, 1.0f);
  }
  return t;
}

float scale_value_at(const ScaleRange& range, float t) {
  switch (range.mode) {
    case ScaleMode::linear:
    case ScaleMode::row_normalised: return range.lo + t * (range.hi - range.lo);
    case ScaleMode::log: return range.lo * std::pow(range.hi / range.lo, t);
  }
  return 0.0f;
}

std::string scale_caption(const ScaleRange& range) {
  std::string s;
  switch (range.mode) {
    case ScaleMode::linear: s = "weight"; break;
    case ScaleMode::log: s = "log weight"; break;
    case ScaleMode::row_normalised: s = "row share"; break;
  }
  if (range.skip_first_column) s += "\nkey 0 out";
  return s;
}

}  // namespace hs::gui
