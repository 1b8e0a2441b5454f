#include "app/gui/state/selection.h"

#include <algorithm>

namespace hs::gui {

void clamp_selection(AppState& s, const Derived& d) {
  const int layers = d.run().n_layers(), heads = d.run().n_heads(), tokens = d.run().n_tokens();
  s.layer = std::clamp(s.layer, 0, std::max(layers - 1, 0));
  s.head = std::clamp(s.head, 0, std::max(heads - 1, 0));
  auto& q = s.query.queries;
  q.erase(std::remove_if(q.begin(), q.end(), [&](int i) { return i < 0 || i >= tokens; }), q.end());
  s.difference.pair_a = std::clamp(s.difference.pair_a, 0, std::max(heads - 1, 0));
  s.difference.pair_b = std::clamp(s.difference.pair_b, 0, std::max(heads - 1, 0));
}

int heads_per_group(const ModelInfo& info) {
  if (info.n_kv_heads <= 0 || info.n_heads <= 0 || info.n_heads % info.n_kv_heads != 0) return 1;
  return info.n_heads / info.n_kv_heads;
}

}  // namespace hs::gui
