#include "app/gui/state/head_order.h"

#include <algorithm>
#include <numeric>

namespace hs::gui {

HeadClustering layer_clustering(const RunAnalysis& a, int layer) {
  if (layer < 0 || size_t(layer) >= a.distance.size() || a.distance[size_t(layer)].size() == 0) return {};
  return cluster_heads(a.distance[size_t(layer)]);
}

std::vector<int> head_order(const RunAnalysis& a, int layer, bool clustered) {
  const int heads = a.run.n_heads();
  if (clustered) {
    HeadClustering c = layer_clustering(a, layer);
    if (int(c.order.size()) == heads) return c.order;
  }
  std::vector<int> order(size_t(std::max(heads, 0)));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

}  // namespace hs::gui
