#include "core/analysis/head_stats.h"

#include <cassert>
#include <cmath>

namespace hs {

Map head_difference(const LayerMaps& heads) {
  const int H = static_cast<int>(heads.size());
  Map diff = Map::Zero(H, H);
  for (int a = 0; a < H; ++a) {
    for (int b = a + 1; b < H; ++b) {
      assert(heads[a].size() == heads[b].size() && "heads of one layer share T");
      // Accumulate in double: T*T cells of small numbers.
      const double sum = (heads[a] - heads[b]).cwiseAbs().cast<double>().sum();
      const float mean = heads[a].size() ? static_cast<float>(sum / double(heads[a].size())) : 0.0f;
      diff(a, b) = mean;
      diff(b, a) = mean;
    }
  }
  return diff;
}

Map head_distance_of_rows(const LayerMaps& rows) {
  const int H = static_cast<int>(rows.size());
  Map dist = Map::Zero(H, H);
  for (int a = 0; a < H; ++a) {
    for (int b = a + 1; b < H; ++b) {
      assert(rows[a].size() == rows[b].size() && "heads of one layer share T");
      // Accumulate in double: R*T cells of small numbers. mean_q 0.5 * sum_k |...|
      const double sum = (rows[a] - rows[b]).cwiseAbs().cast<double>().sum();
      const float mean = rows[a].rows() ? static_cast<float>(0.5 * sum / double(rows[a].rows())) : 0.0f;
      dist(a, b) = mean;
      dist(b, a) = mean;
    }
  }
  return dist;
}

Map head_distance(const LayerMaps& heads) { return head_distance_of_rows(heads); }

Map head_average(const LayerMaps& heads) {
  assert(!heads.empty() && "at least one head");
  Map avg = heads[0];
  for (size_t h = 1; h < heads.size(); ++h) avg += heads[h];
  avg *= 1.0f / static_cast<float>(heads.size());
  return avg;
}

double row_entropy_at(const Map& a, Eigen::Index i) {
  double h = 0.0;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double p = a(i, j);
    if (p > 0.0) h -= p * std::log(p);
  }
  return h;
}

Vec row_entropy(const Map& a) {
  Vec e(a.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i) e[i] = static_cast<float>(row_entropy_at(a, i));
  return e;
}

float mean_entropy(const Map& a) { return a.rows() ? row_entropy(a).mean() : 0.0f; }

Map abs_difference(const Map& a, const Map& b) { return (a - b).cwiseAbs(); }

}  // namespace hs
