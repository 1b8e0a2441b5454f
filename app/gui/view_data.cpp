#include "app/gui/view_data.h"

#include <algorithm>

namespace hs::gui {

Map query_profile(const LayerMaps& heads, const std::vector<int>& queries) {
  const Eigen::Index t = heads.empty() ? 0 : heads[0].cols();
  Map p = Map::Zero(Eigen::Index(heads.size()), t);  // [H, T]
  for (size_t h = 0; h < heads.size(); ++h)
    for (int q : queries)
      if (q >= 0 && q < heads[h].rows()) p.row(Eigen::Index(h)) += heads[h].row(q);
  return p;
}

Map query_profile(const AttentionRun& run, int layer, const std::vector<int>& queries) {
  if (layer < 0 || layer >= run.n_layers()) return Map();
  if (!run.compact()) return query_profile(run.attention[size_t(layer)], queries);
  Map p = Map::Zero(run.n_heads(), run.n_tokens());  // [H, T]
  for (int h = 0; h < run.n_heads(); ++h)
    for (int q : queries)
      if (q >= 0 && q < run.n_tokens()) p.row(h) += run.exact->row(layer, h, q).transpose();
  return p;
}

Map binned_max(const Map& m, int per) {
  if (per <= 1) return m;
  const Eigen::Index bins = (m.cols() + per - 1) / per;
  Map out(m.rows(), bins);
  for (Eigen::Index b = 0; b < bins; ++b) {
    const Eigen::Index c0 = b * per, n = std::min<Eigen::Index>(per, m.cols() - c0);
    out.col(b) = m.middleCols(c0, n).rowwise().maxCoeff();
  }
  return out;
}

std::vector<HeadPair> sorted_pairs(const Map& difference, PairSort by, bool descending) {
  std::vector<HeadPair> pairs;
  for (int a = 0; a < difference.rows(); ++a)
    for (int b = a + 1; b < difference.cols(); ++b) pairs.push_back({a, b, difference(a, b)});
  auto key = [by](const HeadPair& p) {
    switch (by) {
      case PairSort::a: return float(p.a * 65536 + p.b);
      case PairSort::b: return float(p.b * 65536 + p.a);
      case PairSort::difference: return p.difference;
    }
    return 0.0f;
  };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const HeadPair& x, const HeadPair& y) {
    return descending ? key(x) > key(y) : key(x) < key(y);
  });
  return pairs;
}

}  // namespace hs::gui
