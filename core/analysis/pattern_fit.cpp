#include "core/analysis/pattern_fit.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Eigenvalues>

#include "core/analysis/reachable_keys.h"
#include "core/model/rng.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using Matd = Eigen::MatrixXd;

struct Factors {
  Matd q, k;  // [T, d] each: the head's queries and keys
};

// Row-wise log-softmax of s [T, T]: s_ij - log sum_k exp s_ik, stable (the row's largest subtracted).
Matd log_softmax(const Matd& s) {
  Matd out = s;
  for (Eigen::Index i = 0; i < s.rows(); ++i) {
    const double m = s.row(i).maxCoeff();
    out.row(i).array() -= m + std::log((s.row(i).array() - m).exp().sum());
  }
  return out;
}

// -1/T sum_ij p_ij log softmax(s)_ij: nats per row.
double cross_entropy(const Matd& p, const Matd& log_a) { return -(p.array() * log_a.array()).sum() / double(p.rows()); }

Matd jitter(Eigen::Index rows, Eigen::Index cols, double size, Rng& rng) {
  Matd m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = size * rng.normal();
  return m;
}

// The truncated SVD of the row-centred log-target L = U S V^T at rank d: Q = U S^1/2, K = V S^1/2
// (from the eigenvectors of L^T L: U S = L V), plus seeded jitter of 1e-3.
Factors svd_start(const Matd& p, int d, Rng& rng) {
  Matd l = p.array().log().matrix();
  l.colwise() -= l.rowwise().mean();
  const Eigen::SelfAdjointEigenSolver<Matd> eig(l.transpose() * l);  // ascending eigenvalues
  const Eigen::Index T = p.rows();
  Factors f{Matd::Zero(T, d), Matd::Zero(T, d)};
  for (int c = 0; c < d && c < T; ++c) {
    const Eigen::Index e = T - 1 - c;
    const double sigma = std::sqrt(std::max(0.0, eig.eigenvalues()(e)));
    if (sigma <= 1e-12) continue;
    f.k.col(c) = eig.eigenvectors().col(e) * std::sqrt(sigma);
    f.q.col(c) = l * eig.eigenvectors().col(e) / std::sqrt(sigma);
  }
  f.q += jitter(T, d, 1e-3, rng);
  f.k += jitter(T, d, 1e-3, rng);
  return f;
}

// The previous width's factors with new columns of seeded jitter.
Factors widened(const Factors& prev, int d, Rng& rng) {
  const Eigen::Index T = prev.q.rows(), old = prev.q.cols();
  Factors f{jitter(T, d, 1e-3, rng), jitter(T, d, 1e-3, rng)};
  f.q.leftCols(old) = prev.q;
  f.k.leftCols(old) = prev.k;
  return f;
}

double loss_of(const Matd& p, const Factors& f) { return cross_entropy(p, log_softmax(f.q * f.k.transpose())); }

// Adam on the cross-entropy from `f`; returns the best factors met. The gradient of the loss in
// the scores S = Q K^T is G = (A - P) / T, so dQ = G K and dK = G^T Q. `tick` is called every 50
// steps; false stops.
Factors adam(const Matd& p, Factors f, int steps, const std::function<bool(int)>& tick) {
  constexpr double kRate = 0.05, kBeta1 = 0.9, kBeta2 = 0.999, kEps = 1e-8;
  const double T = double(p.rows());
  Factors best = f;
  double best_loss = INFINITY;
  Matd mq = Matd::Zero(f.q.rows(), f.q.cols()), vq = mq, mk = mq, vk = mq;
  for (int step = 1; step <= steps; ++step) {
    const Matd log_a = log_softmax(f.q * f.k.transpose());  // [T, T]
    const double loss = cross_entropy(p, log_a);
    if (loss < best_loss) best_loss = loss, best = f;
    const Matd g = (log_a.array().exp().matrix() - p) / T;  // [T, T]
    const Matd gq = g * f.k, gk = g.transpose() * f.q;      // [T, d]
    const double c1 = 1.0 - std::pow(kBeta1, step), c2 = 1.0 - std::pow(kBeta2, step);
    const auto update = [&](Matd& x, Matd& m, Matd& v, const Matd& grad) {
      m = kBeta1 * m + (1 - kBeta1) * grad;
      v = kBeta2 * v + (1 - kBeta2) * grad.cwiseProduct(grad);
      x.array() -= kRate * (m.array() / c1) / ((v.array() / c2).sqrt() + kEps);
    };
    update(f.q, mq, vq, gq);
    update(f.k, mk, vk, gk);
    if (step % 50 == 0 && tick && !tick(50)) break;
  }
  if (loss_of(p, f) < best_loss) best = f;
  return best;
}

std::string row_text(Eigen::Index i) { return "row " + std::to_string(i); }

}  // namespace

std::vector<int> default_fit_widths(int tokens) {
  std::vector<int> widths;
  for (int d = 1; d < tokens - 1; d *= 2) widths.push_back(d);
  if (tokens >= 2) widths.push_back(tokens - 1);
  if (widths.empty()) widths.push_back(1);
  return widths;
}

void check_pattern_fit(const Map& target, const std::vector<int>& widths, double epsilon) {
  const Eigen::Index T = target.rows();
  if (T == 0 || target.cols() != T) {
    throw InputError("a target pattern must be a square T x T map (row = query, column = key); this one is " +
                     std::to_string(target.rows()) + " x " + std::to_string(target.cols()));
  }
  if (T > kFitMaxTokens) {
    throw InputError("the pattern fit runs on at most " + std::to_string(kFitMaxTokens) + " tokens (each width is " +
                     std::to_string(kFitSteps) + " optimisation steps over T x T maps); this pattern has " +
                     std::to_string(T) + ": use a shorter sentence");
  }
  for (Eigen::Index i = 0; i < T; ++i) {
    for (Eigen::Index j = 0; j < T; ++j)
      if (!std::isfinite(target(i, j)) || target(i, j) < 0)
        throw InputError("the target pattern's weight at " + row_text(i) + ", column " + std::to_string(j) + " is " +
                         std::to_string(target(i, j)) + "; expected a number >= 0");
    const double sum = target.row(i).cast<double>().sum();
    if (std::abs(sum - 1.0) > 1e-3)
      throw InputError("the target pattern's " + row_text(i) + " sums to " + std::to_string(sum) +
                       "; every row of an attention pattern sums to 1");
  }
  if (widths.empty()) throw InputError("the pattern fit needs at least one head width");
  for (int d : widths)
    if (d < 1 || d > T)
      throw InputError("head width " + std::to_string(d) + " is out of range for a pattern of " + std::to_string(T) +
                       " tokens: from 1 to " + std::to_string(T) + " (from T - 1 = " + std::to_string(T - 1) +
                       " on, a head can make any pattern)");
  if (!(epsilon >= 0 && epsilon < 1)) throw InputError("the smoothing epsilon must be from 0 to below 1");
}

float mean_row_total_variation(const Map& a, const Map& b) {
  if (a.rows() == 0) return 0;
  return float(0.5 * (a - b).cast<double>().cwiseAbs().sum() / double(a.rows()));
}

PatternFit fit_pattern(const Map& target, const PatternFitOptions& options, const FitProgress& progress) {
  const int T = int(target.rows());
  const std::vector<int> widths = options.widths.empty() ? default_fit_widths(T) : options.widths;
  check_pattern_fit(target, widths, options.epsilon);
  PatternFit out;
  const Matd p = (1.0 - options.epsilon) * target.cast<double>().array() + options.epsilon / double(T);  // [T, T]
  out.target = p.cast<float>();
  Rng rng(options.seed);
  const int total = int(widths.size()) * options.steps;
  int done = 0;
  bool stopped = false;
  const auto tick = [&](int steps) {
    done += steps;
    stopped = stopped || (progress && !progress(done, total));
    return !stopped;
  };
  Factors prev;
  for (int d : widths) {
    Factors start = svd_start(p, d, rng);
    if (prev.q.cols() > 0 && prev.q.cols() <= d) {
      Factors warm = widened(prev, d, rng);
      if (loss_of(p, warm) < loss_of(p, start)) start = std::move(warm);
    }
    prev = adam(p, std::move(start), options.steps, tick);
    if (stopped) {  // this width's fit is unfinished: only the finished ones are kept
      out.cancelled = true;
      break;
    }
    WidthFit w;
    w.width = d;
    const Matd log_a = log_softmax(prev.q * prev.k.transpose());  // [T, T]
    w.fitted = log_a.array().exp().matrix().cast<float>();
    w.error = mean_row_total_variation(w.fitted, out.target);
    w.cross_entropy = float(cross_entropy(p, log_a));
    w.reachable_keys = reachable_keys(prev.k.cast<float>());
    out.fits.push_back(std::move(w));
  }
  return out;
}

}  // namespace hs
