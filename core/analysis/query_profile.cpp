#include "core/analysis/query_profile.h"

#include <algorithm>

namespace hs {

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

}  // namespace hs
