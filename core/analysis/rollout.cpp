#include "core/analysis/rollout.h"

#include <algorithm>

namespace hs {

Map attention_rollout(const ModelMaps& maps, int layers, std::vector<Map>* each) {
  const int L = layers < 0 ? int(maps.size()) : std::min(layers, int(maps.size()));
  if (L == 0 || maps[0].empty()) return Map();
  const Eigen::Index T = maps[0][0].rows();
  Map r = Map::Identity(T, T);  // [T, T]
  for (int l = 0; l < L; ++l) {
    Map mixed = Map::Zero(T, T);  // Â_l = 0.5 * mean_h A + 0.5 * I
    for (const Map& a : maps[size_t(l)]) mixed += a;
    mixed *= 0.5f / float(maps[size_t(l)].size());
    mixed.diagonal().array() += 0.5f;
    r = mixed * r;
    if (each) each->push_back(r);
  }
  return r;
}

}  // namespace hs
