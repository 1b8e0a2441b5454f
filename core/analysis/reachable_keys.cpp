#include "core/analysis/reachable_keys.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hs {
namespace {

using ReachMatd = Eigen::MatrixXd;
using Vecd = Eigen::VectorXd;

constexpr double kPivotEps = 1e-11;  // tableau entries and reduced costs smaller than this are 0

// The simplex tableau of  min sum_c (p_c + m_c)  s.t.  sum_i l_i x_i + p - m = y,  sum_i l_i = 1,
// l, p, m >= 0  (x_i the rows of `others`, [n, d]): its optimum is the L1 distance from y to the
// hull of the x_i. Columns: l_0 .. l_{n-1}, p_0 .. p_{d-1}, m_0 .. m_{d-1}, then the right-hand
// side; rows 0 .. d-1 the coordinates, row d the sum, row d + 1 the reduced costs.
class HullTableau {
 public:
  HullTableau(const ReachMatd& x, const Vecd& y) : n_(int(x.rows())), d_(int(x.cols())), t_(ReachMatd::Zero(d_ + 2, n_ + 2 * d_ + 1)) {
    // A first basis: l_0 = 1, and each coordinate's residual y_c - x_0c in p_c (>= 0) or m_c (< 0);
    // row c is multiplied by the residual's sign s_c so that its basic variable has coefficient 1.
    basis_.resize(size_t(d_ + 1));
    for (int c = 0; c < d_; ++c) {
      const double s = y(c) - x(0, c) >= 0 ? 1.0 : -1.0;
      for (int i = 0; i < n_; ++i) t_(c, i) = s * (x(i, c) - x(0, c));
      t_(c, n_ + c) = s;
      t_(c, n_ + d_ + c) = -s;
      t_(c, rhs()) = s * (y(c) - x(0, c));
      basis_[size_t(c)] = s > 0 ? n_ + c : n_ + d_ + c;
    }
    for (int i = 0; i < n_; ++i) t_(d_, i) = 1.0;
    t_(d_, rhs()) = 1.0;
    basis_[size_t(d_)] = 0;
    // Reduced costs r_j = c_j - sum over coordinate rows of t(c, j) (their basic costs are 1, the
    // sum row's l_0 costs 0); the corner holds minus the objective.
    for (int j = 0; j <= rhs(); ++j) {
      const double cost = j >= n_ && j < rhs() ? 1.0 : 0.0;
      t_(d_ + 1, j) = cost - t_.col(j).head(d_).sum();
    }
  }

  // Runs to the optimum: Dantzig's rule (the most negative reduced cost) until a pivot makes no
  // progress, then Bland's (the lowest index), which never cycles. Returns the objective.
  double solve() {
    bool bland = false;
    const int cap = 50 * (rhs() + d_ + 1);  // Bland's rule ends long before (a guard against rounding)
    for (int it = 0; it < cap; ++it) {
      const int enter = entering(bland);
      if (enter < 0) break;
      const int row = leaving(enter);
      if (row < 0) break;  // unbounded: impossible here (the objective is >= 0)
      if (t_(row, rhs()) <= kPivotEps) bland = true;  // a degenerate pivot
      pivot(row, enter);
    }
    return std::max(0.0, -t_(d_ + 1, rhs()));
  }

 private:
  int rhs() const { return n_ + 2 * d_; }

  int entering(bool bland) const {
    int best = -1;
    for (int j = 0; j < rhs(); ++j) {
      const double r = t_(d_ + 1, j);
      if (r >= -kPivotEps) continue;
      if (bland) return j;
      if (best < 0 || r < t_(d_ + 1, best)) best = j;
    }
    return best;
  }

  // The ratio test; ties go to the lowest basic variable (Bland).
  int leaving(int enter) const {
    int row = -1;
    double best = std::numeric_limits<double>::infinity();
    for (int r = 0; r <= d_; ++r) {
      const double a = t_(r, enter);
      if (a <= kPivotEps) continue;
      const double ratio = t_(r, rhs()) / a;
      if (ratio < best - 1e-15 || (ratio <= best + 1e-15 && row >= 0 && basis_[size_t(r)] < basis_[size_t(row)])) {
        best = ratio;
        row = r;
      }
    }
    return row;
  }

  void pivot(int row, int enter) {
    t_.row(row) /= t_(row, enter);
    for (int r = 0; r < t_.rows(); ++r)
      if (r != row && t_(r, enter) != 0.0) t_.row(r) -= t_(r, enter) * t_.row(row);
    basis_[size_t(row)] = enter;
  }

  int n_, d_;
  ReachMatd t_;                  // [d + 2, n + 2d + 1]
  std::vector<int> basis_;  // [d + 1] the basic variable of each row
};

// A certificate that key j is a vertex: a query q with q . (k_j - k_i) >= m > 0 for every other
// key i; then every point of the others' hull is at L1 distance >= m / max|q| from k_j. Tried from
// q = k_j (keys centred) with a few perceptron steps toward the key that beats k_j most. u: [n, d]
// the differences k_j - k_i. True when the distance bound passes `tol`.
bool certified(const ReachMatd& u, Vecd q, double tol) {
  for (int step = 0; step < 16; ++step) {
    const Vecd margins = u * q;  // [n]
    Eigen::Index worst = 0;
    const double m = margins.minCoeff(&worst);
    const double size = q.cwiseAbs().maxCoeff();
    if (m > 0 && size > 0 && m / size > tol) return true;
    const double norm = u.row(worst).norm();
    if (norm == 0) return false;
    q += u.row(worst).transpose() / norm;
  }
  return false;
}

}  // namespace

double hull_distance_l1(const Eigen::MatrixXd& others, const Eigen::VectorXd& point) {
  if (others.rows() == 0) return std::numeric_limits<double>::infinity();
  return HullTableau(others, point).solve();
}

std::vector<int> reachable_keys(const Map& keys) {
  const int T = int(keys.rows());
  ReachMatd k = keys.cast<double>();  // [T, d]
  if (T > 0) k.rowwise() -= k.colwise().mean();
  const double radius = T > 0 ? k.rowwise().lpNorm<1>().maxCoeff() : 0.0;
  std::vector<int> out;
  if (!(radius > 0) || !std::isfinite(radius)) {  // every key the same point (or none): it ties for the top
    for (int j = 0; j < T; ++j) out.push_back(j);
    return out;
  }
  k /= radius;
  for (int j = 0; j < T; ++j) {
    // The other distinct points: keys farther than the tolerance from k_j.
    std::vector<int> others;
    for (int i = 0; i < T; ++i)
      if ((k.row(i) - k.row(j)).lpNorm<1>() > kReachTolerance) others.push_back(i);
    ReachMatd x(others.size(), k.cols());  // [n, d]
    for (size_t r = 0; r < others.size(); ++r) x.row(Eigen::Index(r)) = k.row(others[r]);
    const bool vertex = others.empty() || certified((-x).rowwise() + k.row(j), k.row(j).transpose(), kReachTolerance) ||
                        hull_distance_l1(x, k.row(j).transpose()) > kReachTolerance;
    if (vertex) out.push_back(j);
  }
  return out;
}

}  // namespace hs
