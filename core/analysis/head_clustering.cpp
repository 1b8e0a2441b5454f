#include "core/analysis/head_clustering.h"

#include <cassert>
#include <limits>

#include <Eigen/Core>

namespace hs {

HeadClustering cluster_heads(const Map& distance) {
  assert(distance.rows() == distance.cols() && "a square distance matrix");
  const int H = int(distance.rows());
  HeadClustering out;
  if (H == 0) return out;
  // Active clusters: id, members in leaf order (the left part first), and the average-linkage
  // distances between them, kept by the Lance-Williams update for UPGMA:
  //   d(k, i + j) = (|i| d(k, i) + |j| d(k, j)) / (|i| + |j|).   O(H^3) in all.
  std::vector<int> ids;
  std::vector<std::vector<int>> members;
  for (int h = 0; h < H; ++h) ids.push_back(h), members.push_back({h});
  Eigen::MatrixXd d = distance.cast<double>();  // [n, n] between active clusters (slots)
  while (ids.size() > 1) {
    const Eigen::Index n = Eigen::Index(ids.size());
    Eigen::Index bi = 0, bj = 1;
    double best = std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < n; ++i)
      for (Eigen::Index j = i + 1; j < n; ++j)
        if (d(i, j) < best) best = d(i, j), bi = i, bj = j;
    ClusterMerge m;
    m.a = ids[size_t(bi)], m.b = ids[size_t(bj)], m.distance = float(best);
    const double si = double(members[size_t(bi)].size()), sj = double(members[size_t(bj)].size());
    for (Eigen::Index k = 0; k < n; ++k) d(bi, k) = d(k, bi) = (si * d(bi, k) + sj * d(bj, k)) / (si + sj);
    d(bi, bi) = 0;
    std::vector<int> joined = members[size_t(bi)];
    joined.insert(joined.end(), members[size_t(bj)].begin(), members[size_t(bj)].end());
    m.size = int(joined.size());
    out.merges.push_back(m);
    // The joined cluster takes slot i; slot j goes.
    ids[size_t(bi)] = H + int(out.merges.size()) - 1;
    members[size_t(bi)] = std::move(joined);
    ids.erase(ids.begin() + std::ptrdiff_t(bj));
    members.erase(members.begin() + std::ptrdiff_t(bj));
    Eigen::MatrixXd keep(n - 1, n - 1);  // d without row and column j
    for (Eigen::Index r = 0, rr = 0; r < n; ++r) {
      if (r == bj) continue;
      for (Eigen::Index c = 0, cc = 0; c < n; ++c)
        if (c != bj) keep(rr, cc++) = d(r, c);
      ++rr;
    }
    d = std::move(keep);
  }
  out.order = members[0];
  return out;
}

}  // namespace hs
