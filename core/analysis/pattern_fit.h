#pragma once
// Draw a pattern, see what a width can do: the closest attention map a head of width d can make to
// a target pattern P ([T, T], rows sum to 1). A head of width d makes A = softmax(Q K^T) row by row
// with Q, K in R^{T x d} (any query and key vectors: the fit is free to choose them, with no mask),
// so the fit minimises the cross-entropy -1/T sum_ij P_ij log A_ij over Q and K by Adam, from the
// better of two starts: the truncated SVD of the centred log-target (rank d; it is exact from
// d = T - 1, since a row-centred T x T matrix has rank at most T - 1) and the previous width's
// fit with d - d' small seeded columns added. The best iterate is kept, so the cross-entropy never
// rises with width. A one-hot row is reached only at infinite scores: targets are smoothed to
// (1 - eps) P + eps / T first, and the error is measured against the smoothed target.
//
// Error: the mean over rows of the total variation 0.5 sum_j |A_ij - P_ij|, in [0, 1]: 0 is the
// target exactly; a uniform map against a one-hot target scores 1 - 1/T.
#include <cstdint>
#include <functional>
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// The fit's budget: Adam steps cost about 6 T^2 d multiply-adds each, for every width asked.
constexpr int kFitMaxTokens = 64;
constexpr double kFitSmoothing = 0.01;  // eps
constexpr int kFitSteps = 1500;          // Adam steps per width

struct PatternFitOptions {
  std::vector<int> widths;  // empty: default_fit_widths(T)
  double epsilon = kFitSmoothing;
  uint64_t seed = 0;
  int steps = kFitSteps;
};

struct WidthFit {
  int width = 0;
  Map fitted;                       // [T, T] softmax(Q K^T), rows sum to 1
  float error = 0;                  // mean per-row total variation against the smoothed target
  float cross_entropy = 0;          // nats per row
  std::vector<int> reachable_keys;  // of the fitted K (reachable_keys.h)
};

struct PatternFit {
  Map target;  // [T, T] the smoothed target the fits aim at
  std::vector<WidthFit> fits;  // one per width asked, in order (fewer when cancelled)
  bool cancelled = false;
};

// 1, 2, 4, ... while below T - 1, then T - 1 (for T = 11: 1, 2, 4, 8, 10); {1} for T <= 2.
std::vector<int> default_fit_widths(int tokens);

// InputError saying what is wrong: a target that is not square, has more than kFitMaxTokens
// rows, has a negative or non-finite weight, or a row that does not sum to 1 (within 1e-3); a
// width below 1 or above T; no widths; epsilon outside [0, 1).
void check_pattern_fit(const Map& target, const std::vector<int>& widths, double epsilon = kFitSmoothing);

// Called after every 50 steps with steps done and the total; false stops the fit (what is done
// so far is returned, cancelled set).
using FitProgress = std::function<bool(int done, int total)>;

// Checks its input (check_pattern_fit), then fits every width. Deterministic for a seed.
PatternFit fit_pattern(const Map& target, const PatternFitOptions& options = {}, const FitProgress& progress = {});

// Mean over rows of 0.5 sum_j |a_ij - b_ij|.
float mean_row_total_variation(const Map& a, const Map& b);

}  // namespace hs
