#include "core/render/colour_scale.h"

#include <algorithm>
#include <cmath>

#include "core/util/errors.h"

namespace hs {

const char* scale_mode_name(ScaleMode mode) {
  switch (mode) {
    case ScaleMode::linear: return "linear";
    case ScaleMode::log: return "log";
    case ScaleMode::row_normalised: return "row";
  }
  return "?";
}

ScaleMode parse_scale_mode(const std::string& name) {
  for (ScaleMode m : {ScaleMode::linear, ScaleMode::log, ScaleMode::row_normalised})
    if (name == scale_mode_name(m)) return m;
  throw InputError("unknown colour scale '" + name + "'; expected linear, log or row");
}

float colour_scale_max(const std::vector<const Map*>& maps, bool skip_first_column, const std::vector<bool>* skip_keys) {
  const bool by_mask = skip_first_column && skip_keys && std::find(skip_keys->begin(), skip_keys->end(), true) != skip_keys->end();
  float m = 0.0f;
  for (const Map* map : maps) {
    if (!map || map->size() == 0) continue;
    float a = 0.0f;
    if (by_mask && size_t(map->cols()) == skip_keys->size()) {  // every key column the mask does not leave out
      for (Eigen::Index j = 0; j < map->cols(); ++j)
        if (size_t(j) >= skip_keys->size() || !(*skip_keys)[size_t(j)]) a = std::max(a, map->col(j).cwiseAbs().maxCoeff());
    } else {
      const Eigen::Index first = skip_first_column && map->cols() > 1 ? 1 : 0;
      a = map->rightCols(map->cols() - first).cwiseAbs().maxCoeff();
    }
    if (a > m) m = a;  // NaN never wins
  }
  return m > 0.0f && std::isfinite(m) ? m : 1.0f;
}

ScaleRange scale_range(const ColourScale& scale, float max_value) {
  ScaleRange r;
  r.mode = scale.mode;
  r.skip_first_column = scale.ignore_first_key;
  const float hi = (max_value > 0.0f && std::isfinite(max_value)) ? max_value : 1.0f;
  switch (scale.mode) {
    case ScaleMode::linear:
      r.diverging = colormap_is_diverging(scale.colormap);
      r.lo = r.diverging ? -hi : 0.0f, r.hi = hi;
      break;
    case ScaleMode::log: r.lo = hi * std::pow(10.0f, -kLogDecades), r.hi = hi; break;
    case ScaleMode::row_normalised: r.lo = 0.0f, r.hi = 1.0f; break;
  }
  return r;
}

float scale_unit(const ScaleRange& range, float value, float row_max) {
  switch (range.mode) {
    case ScaleMode::linear:
      return colour_t(range.diverging ? Colormap::rdbu : Colormap::viridis, value, range.hi);
    case ScaleMode::log:
      // t = log(v / lo) / log(hi / lo); v <= lo -> 0
      if (!(value > range.lo)) return 0.0f;
      return std::min(1.0f, std::log(value / range.lo) / std::log(range.hi / range.lo));
    case ScaleMode::row_normalised:
      return row_max > 0.0f ? std::clamp(value / row_max, 0.0f, 1.0f) : 0.0f;
  }
  return 0.0f;
}

Map scale_to_unit(const Map& map, const ScaleRange& range) {
  Map t;
  scale_to_unit(map, range, t);
  return t;
}

void scale_to_unit(const Map& map, const ScaleRange& range, Map& t) {
  t.resize(map.rows(), map.cols());  // [rows, cols]
  if (range.mode == ScaleMode::linear) {
    // colour_t's arithmetic, cell by cell, without its per-cell colormap test and the mode
    // switch: the same floats, in a loop the compiler vectorises (the app scales 144 maps of
    // 257 x 257 cells per keystroke on a GPT-2-small-shaped model).
    const float hi = range.hi;
    const float* in = map.data();
    float* out = t.data();
    const Eigen::Index n = map.size();
    if (range.diverging) {
      for (Eigen::Index k = 0; k < n; ++k) {
        const float u = 0.5f + 0.5f * (in[k] / hi);
        out[k] = u > 0.0f ? std::min(u, 1.0f) : 0.0f;  // NaN -> 0
      }
    } else {
      for (Eigen::Index k = 0; k < n; ++k) {
        const float u = in[k] / hi;
        out[k] = u > 0.0f ? std::min(u, 1.0f) : 0.0f;  // NaN -> 0
      }
    }
    return;
  }
  const Eigen::Index first = (range.skip_first_column && map.cols() > 1) ? 1 : 0;
  for (Eigen::Index i = 0; i < map.rows(); ++i) {
    const float row_max =
        range.mode == ScaleMode::row_normalised && map.cols() > first ? map.row(i).tail(map.cols() - first).maxCoeff() : 0.0f;
    for (Eigen::Index j = 0; j < map.cols(); ++j) {
      const float u = scale_unit(range, map(i, j), row_max);
      t(i, j) = u > 0.0f ? std::min(u, 1.0f) : 0.0f;  // NaN -> 0
    }
  }
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

float colour_t(Colormap cm, float value, float scale_max) {
  const float r = value / scale_max;
  float t = colormap_is_diverging(cm) ? 0.5f + 0.5f * r : r;
  if (!(t > 0.0f)) t = 0.0f;  // also NaN
  if (t > 1.0f) t = 1.0f;
  return t;
}

Rgb8 cell_colour(Colormap cm, float value, float scale_max) { return colormap_lookup(cm, colour_t(cm, value, scale_max)); }

}  // namespace hs
