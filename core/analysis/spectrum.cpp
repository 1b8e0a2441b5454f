#include "core/analysis/spectrum.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>

namespace hs {

Map unmasked_scores(const Map& queries, const Map& keys, int head, int n_heads, int n_kv_heads, int d_head) {
  const int g = head / std::max(1, n_heads / std::max(1, n_kv_heads));  // GQA: query head h reads kv head h / (H / G)
  const Map q = queries.middleCols(Eigen::Index(head) * d_head, d_head);  // [T, dh]
  const Map k = keys.middleCols(Eigen::Index(g) * d_head, d_head);       // [T, dh]
  return (q * k.transpose()) / std::sqrt(float(d_head));                  // [T, T]
}

Vec singular_values(const Map& scores) {
  Eigen::MatrixXd m = scores.cast<double>();
  for (Eigen::Index i = 0; i < m.size(); ++i)
    if (!std::isfinite(m.data()[i])) m.data()[i] = 0.0;  // masked cells carry no score
  if (m.size() == 0) return Vec();
  // The singular values are the square roots of the eigenvalues of the Gram matrix (the smaller of
  // m^T m and m m^T). In double its rounding moves a singular value by about 1e-8 of the largest,
  // far below numerical_rank's float tolerance (size * 1.2e-7 of the largest). A symmetric
  // eigensolver compiles in a fraction of an SVD's time (Eigen's BDCSVD instantiated the most
  // template code of the whole build).
  const Eigen::MatrixXd gram = m.rows() >= m.cols() ? Eigen::MatrixXd(m.transpose() * m) : Eigen::MatrixXd(m * m.transpose());
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(gram, Eigen::EigenvaluesOnly);
  const Eigen::VectorXd ascending = eig.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  return ascending.reverse().cast<float>();  // descending, as an SVD gives them
}

int numerical_rank(const Vec& s, int size) {
  if (s.size() == 0) return 0;
  const double tol = double(s.maxCoeff()) * double(size) * double(std::numeric_limits<float>::epsilon());
  int rank = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] > tol) ++rank;
  return rank;
}

float effective_rank(const Vec& s) {
  const double total = s.cast<double>().sum();
  if (total <= 0.0) return 0.0f;
  double h = 0.0;
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    const double p = double(s[i]) / total;
    if (p > 0.0) h -= p * std::log(p);
  }
  return static_cast<float>(std::exp(h));
}

}  // namespace hs
