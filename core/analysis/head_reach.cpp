#include "core/analysis/head_reach.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/analysis/reachable_keys.h"
#include "core/analysis/spectrum.h"
#include "core/util/parallel.h"

namespace hs {
namespace {

constexpr double kTieShare = 1e-6;  // scores closer than this share of a row's largest |score| tie

// Whether row `s` (scores of the keys in `order`, the last query's ranking from lowest up, cut into
// groups of its ties) never ranks a later group below an earlier one; `sign` -1 tests the reverse.
bool keeps_order(const std::vector<double>& s, const std::vector<int>& group_of, double tie, double sign) {
  double prev_max = -INFINITY, cur_max = -INFINITY;  // the largest score of the earlier groups, of this group
  int group = -1;
  for (size_t k = 0; k < s.size(); ++k) {
    const double v = sign * s[k];
    if (group_of[k] != group) prev_max = std::max(prev_max, cur_max), cur_max = -INFINITY, group = group_of[k];
    if (v < prev_max - tie) return false;  // a key of a later group scores below one of an earlier group
    cur_max = std::max(cur_max, v);
  }
  return true;
}

}  // namespace

float HeadReach::agreeing_share() const { return ranked_rows > 0 ? float(agreeing_rows) / float(ranked_rows) : NAN; }

void count_agreeing_rows(const Map& scores, const Map& visible, HeadReach& out) {
  const Eigen::Index T = scores.rows();
  out.ranked_rows = out.agreeing_rows = 0;
  if (T == 0) return;
  // The last query's ranking of every key, lowest first.
  const auto last = scores.row(T - 1);
  std::vector<int> rank(static_cast<size_t>(T));
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(), [&](int a, int b) { return last(a) < last(b); });
  const double last_tie = kTieShare * double(last.cwiseAbs().maxCoeff());
  for (Eigen::Index i = 0; i < T; ++i) {
    // Row i's visible keys in the last query's order, with that order's tie groups.
    std::vector<double> s;
    std::vector<int> group_of;
    int group = 0;
    double group_start = -INFINITY;
    double row_max = 0;
    for (int j : rank) {
      if (!std::isfinite(visible(i, j))) continue;
      if (double(last(j)) > group_start + last_tie) ++group, group_start = double(last(j));
      s.push_back(double(scores(i, j)));
      group_of.push_back(group);
      row_max = std::max(row_max, std::abs(s.back()));
    }
    if (s.size() < 3) continue;
    ++out.ranked_rows;
    const double tie = kTieShare * row_max;
    if (keeps_order(s, group_of, tie, 1.0) || keeps_order(s, group_of, tie, -1.0)) ++out.agreeing_rows;
  }
}

bool reach_fits(const ModelInfo& info, int64_t tokens) {
  const double kv_maps = double(info.n_layers) * double(std::max(1, info.n_kv_heads)), T = double(tokens);
  return kv_maps * T * T * (info.d_head + 1.0) * (info.d_head + 1.0) <= kReachBudget;
}

std::vector<std::vector<HeadReach>> head_reach(const AttentionRun& run, int threads) {
  const int L = run.n_layers(), H = run.n_heads();
  const ModelInfo& info = run.info;
  std::vector<std::vector<HeadReach>> out;
  if (L == 0 || run.queries.size() != size_t(L) || run.keys.size() != size_t(L) || run.scores.size() != size_t(L)) return out;
  for (int l = 0; l < L; ++l)
    if (run.keys[size_t(l)].size() == 0 || run.scores[size_t(l)].size() != size_t(H)) return out;
  out.assign(size_t(L), std::vector<HeadReach>(size_t(H)));
  const int G = std::max(1, info.n_kv_heads), group = std::max(1, H / G), dh = info.d_head;
  // One job per key/value head: its reachable keys, then its query heads' rows that agree.
  parallel_for(L * G, threads, [&](int job) {
    const int l = job / G, g = job % G;
    const Map k = run.keys[size_t(l)].middleCols(Eigen::Index(g) * dh, dh);  // [T, dh]
    const std::vector<int> keys = reachable_keys(k);
    for (int h = g * group; h < (g + 1) * group; ++h) {
      HeadReach& r = out[size_t(l)][size_t(h)];
      r.reachable_keys = keys;
      count_agreeing_rows(unmasked_scores(run.queries[size_t(l)], run.keys[size_t(l)], h, H, G, dh),
                          run.scores[size_t(l)][size_t(h)], r);
    }
  });
  return out;
}

}  // namespace hs
