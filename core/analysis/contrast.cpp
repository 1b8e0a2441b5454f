#include "core/analysis/contrast.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <map>

#include "core/util/errors.h"

namespace hs {

const char* align_op_name(AlignOp op) {
  switch (op) {
    case AlignOp::same: return "same";
    case AlignOp::replaced: return "replaced";
    case AlignOp::deleted: return "deleted";
    case AlignOp::inserted: return "inserted";
  }
  return "same";
}

int TokenAlignment::changed() const {
  return static_cast<int>(std::count_if(steps.begin(), steps.end(), [](const AlignStep& s) { return s.op != AlignOp::same; }));
}

namespace {

// A gap between two matched tokens: a[a0, a1) and b[b0, b1) share nothing in the alignment.
void push_gap(std::vector<AlignStep>& steps, int a0, int a1, int b0, int b1) {
  const int paired = std::min(a1 - a0, b1 - b0);
  for (int k = 0; k < paired; ++k) steps.push_back({AlignOp::replaced, a0 + k, b0 + k});
  for (int i = a0 + paired; i < a1; ++i) steps.push_back({AlignOp::deleted, i, -1});
  for (int j = b0 + paired; j < b1; ++j) steps.push_back({AlignOp::inserted, -1, j});
}

// The matched index pairs of a longest common subsequence of a[a0, a1) and b[b0, b1), in order.
// len(i, j) = LCS of the suffixes a[i..], b[j..]; the walk takes a match whenever it keeps the
// length, so among equal-length answers the earliest matches win (deterministic).
std::vector<std::pair<int, int>> lcs_pairs(const std::vector<int>& a, int a0, int a1, const std::vector<int>& b, int b0, int b1) {
  const int n = a1 - a0, m = b1 - b0;
  std::vector<std::pair<int, int>> out;
  if (n == 0 || m == 0) return out;
  if (static_cast<long long>(n + 1) * (m + 1) > kMaxAlignCells) {
    throw InputError("the two sentences differ over " + std::to_string(n) + " and " + std::to_string(m) +
                     " tokens; the alignment compares at most " + std::to_string(kMaxAlignCells) +
                     " token pairs (shorten the part that differs)");
  }
  // len: [(n + 1), (m + 1)], row i = a[a0 + i..], col j = b[b0 + j..]
  std::vector<int32_t> len(static_cast<size_t>(n + 1) * (m + 1), 0);
  auto at = [&](int i, int j) -> int32_t& { return len[static_cast<size_t>(i) * (m + 1) + j]; };
  for (int i = n - 1; i >= 0; --i)
    for (int j = m - 1; j >= 0; --j)
      at(i, j) = a[a0 + i] == b[b0 + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  int i = 0, j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] == b[b0 + j] && at(i, j) == at(i + 1, j + 1) + 1) {
      out.emplace_back(a0 + i, b0 + j);
      ++i, ++j;
    } else if (at(i + 1, j) >= at(i, j + 1)) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

}  // namespace

TokenAlignment align_tokens(const std::vector<int>& a, const std::vector<int>& b) {
  const int na = static_cast<int>(a.size()), nb = static_cast<int>(b.size());
  int prefix = 0;
  while (prefix < na && prefix < nb && a[prefix] == b[prefix]) ++prefix;
  int suffix = 0;
  while (suffix < na - prefix && suffix < nb - prefix && a[na - 1 - suffix] == b[nb - 1 - suffix]) ++suffix;

  std::vector<std::pair<int, int>> matches;
  for (int k = 0; k < prefix; ++k) matches.emplace_back(k, k);
  for (const auto& m : lcs_pairs(a, prefix, na - suffix, b, prefix, nb - suffix)) matches.push_back(m);
  for (int k = suffix; k > 0; --k) matches.emplace_back(na - k, nb - k);

  TokenAlignment out;
  out.a_to_b.assign(a.size(), -1);
  out.b_to_a.assign(b.size(), -1);
  int ai = 0, bj = 0;
  for (const auto& [i, j] : matches) {
    push_gap(out.steps, ai, i, bj, j);
    out.steps.push_back({AlignOp::same, i, j});
    out.a_to_b[size_t(i)] = j;
    out.b_to_a[size_t(j)] = i;
    ai = i + 1, bj = j + 1;
  }
  push_gap(out.steps, ai, na, bj, nb);
  return out;
}

void alignment_keys(const AttentionRun& a, const AttentionRun& b, std::vector<int>& keys_a, std::vector<int>& keys_b) {
  if (!a.token_ids.empty() && !b.token_ids.empty()) {
    keys_a = a.token_ids;
    keys_b = b.token_ids;
    return;
  }
  std::map<std::string, int> number;
  auto key = [&](const std::string& label) { return number.emplace(label, static_cast<int>(number.size())).first->second; };
  keys_a.clear();
  keys_b.clear();
  for (const std::string& t : a.tokens) keys_a.push_back(key(t));
  for (const std::string& t : b.tokens) keys_b.push_back(key(t));
}

float row_change(const Map& a, int row_a, const Map& b, int row_b, const TokenAlignment& alignment) {
  double sum = 0;
  for (const AlignStep& s : alignment.steps) {
    const double wa = s.a >= 0 ? double(a(row_a, s.a)) : 0.0;
    const double wb = s.b >= 0 ? double(b(row_b, s.b)) : 0.0;
    sum += std::abs(wa - wb);
  }
  return static_cast<float>(0.5 * sum);
}

namespace {

// Weight a row puts on the tokens the alignment changed on its side.
double weight_on_changed(const Map& m, int row, const std::vector<int>& to_other) {
  double w = 0;
  for (Eigen::Index k = 0; k < m.cols(); ++k)
    if (to_other[size_t(k)] < 0) w += m(row, k);
  return w;
}

HeadChange head_change(const Map& a, const Map& b, const TokenAlignment& alignment, int first_step) {
  HeadChange h;
  double sum = 0, on_a = 0, on_b = 0;
  int rows = 0;
  for (size_t step = size_t(first_step); step < alignment.steps.size(); ++step) {
    const AlignStep& s = alignment.steps[step];
    if (s.a < 0 || s.b < 0) continue;  // a query only one side has: nothing to compare its row with
    const float change = row_change(a, s.a, b, s.b, alignment);
    if (change > h.max_row || h.max_row_step < 0) h.max_row = change, h.max_row_step = static_cast<int>(step);
    sum += change;
    on_a += weight_on_changed(a, s.a, alignment.a_to_b);
    on_b += weight_on_changed(b, s.b, alignment.b_to_a);
    ++rows;
  }
  if (rows > 0) {
    h.distance = static_cast<float>(sum / rows);
    h.changed_a = static_cast<float>(on_a / rows);
    h.changed_b = static_cast<float>(on_b / rows);
  }
  return h;
}

// A causal model's rows before the first changed step read the same tokens in A and B, so they
// cannot move: the change counts the query steps from there on (every step without a mask).
int first_query_step(const TokenAlignment& alignment, bool causal) {
  if (!causal) return 0;
  const auto& s = alignment.steps;
  return int(std::find_if(s.begin(), s.end(), [](const AlignStep& x) { return x.op != AlignOp::same; }) - s.begin());
}

void check_comparable(const AttentionRun& a, const AttentionRun& b) {
  if (a.compact() || b.compact()) {
    throw InputError("comparing two sentences needs whole attention maps, and " + std::string(a.compact() ? "the first" : "the second") +
                     " sentence is in long-input mode (" + std::to_string(a.compact() ? a.n_tokens() : b.n_tokens()) +
                     " tokens); shorten it or give --whole-maps");
  }
  if (a.n_layers() != b.n_layers() || a.n_heads() != b.n_heads()) {
    throw InputError("the two runs have different shapes (" + std::to_string(a.n_layers()) + " x " + std::to_string(a.n_heads()) +
                     " and " + std::to_string(b.n_layers()) + " x " + std::to_string(b.n_heads()) +
                     " layers x heads); compare two sentences on one model");
  }
}

}  // namespace

ContrastResult contrast_runs(const AttentionRun& a, const AttentionRun& b) {
  check_comparable(a, b);
  std::vector<int> keys_a, keys_b;
  alignment_keys(a, b, keys_a, keys_b);
  ContrastResult out;
  out.alignment = align_tokens(keys_a, keys_b);
  out.first_query_step = first_query_step(out.alignment, a.info.causal);
  const std::vector<int> paired = out.alignment.paired_steps();
  out.query_rows = static_cast<int>(std::count_if(paired.begin(), paired.end(), [&](int k) { return k >= out.first_query_step; }));
  out.heads.resize(size_t(a.n_layers()));
  for (int l = 0; l < a.n_layers(); ++l)
    for (int h = 0; h < a.n_heads(); ++h)
      out.heads[size_t(l)].push_back(
          head_change(a.attention[size_t(l)][size_t(h)], b.attention[size_t(l)][size_t(h)], out.alignment, out.first_query_step));
  return out;
}

ContrastResult contrast_same_tokens(const AttentionRun& a, const AttentionRun& b, int layers, int heads) {
  assert(layers <= std::min(a.n_layers(), b.n_layers()) && heads <= std::min(a.n_heads(), b.n_heads()) && "shared heads");
  ContrastResult out;
  out.models = true;
  std::vector<int> keys_a, keys_b;
  alignment_keys(a, b, keys_a, keys_b);
  out.alignment = align_tokens(keys_a, keys_b);
  assert(out.alignment.changed() == 0 && "the same tokens on both sides");
  out.query_rows = static_cast<int>(out.alignment.steps.size());
  out.heads.resize(size_t(layers));
  for (int l = 0; l < layers; ++l)
    for (int h = 0; h < heads; ++h)
      out.heads[size_t(l)].push_back(head_change(a.attention[size_t(l)][size_t(h)], b.attention[size_t(l)][size_t(h)], out.alignment, 0));
  return out;
}

std::vector<std::vector<int>> change_ranks(const ContrastResult& contrast) {
  std::vector<std::pair<int, int>> order;
  for (size_t l = 0; l < contrast.heads.size(); ++l)
    for (size_t h = 0; h < contrast.heads[l].size(); ++h) order.emplace_back(int(l), int(h));
  const auto change = [&](const std::pair<int, int>& x) { return contrast.heads[size_t(x.first)][size_t(x.second)].distance; };
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) { return change(x) > change(y); });
  std::vector<std::vector<int>> ranks(contrast.heads.size());
  for (size_t l = 0; l < contrast.heads.size(); ++l) ranks[l].assign(contrast.heads[l].size(), 0);
  for (size_t i = 0; i < order.size(); ++i) ranks[size_t(order[i].first)][size_t(order[i].second)] = int(i) + 1;
  return ranks;
}

Map ContrastResult::distance_grid() const {
  const Eigen::Index layers = Eigen::Index(heads.size()), cols = heads.empty() ? 0 : Eigen::Index(heads[0].size());
  Map grid(layers, cols);
  for (Eigen::Index l = 0; l < layers; ++l)
    for (Eigen::Index h = 0; h < cols; ++h) grid(l, h) = heads[size_t(l)][size_t(h)].distance;
  return grid;
}

std::vector<int> TokenAlignment::paired_steps() const {
  std::vector<int> out;
  for (size_t k = 0; k < steps.size(); ++k)
    if (steps[k].a >= 0 && steps[k].b >= 0) out.push_back(static_cast<int>(k));
  return out;
}

Map difference_map(const Map& a, const Map& b, const TokenAlignment& alignment) {
  const std::vector<int> paired = alignment.paired_steps();
  const Eigen::Index n = Eigen::Index(paired.size());
  Map out(n, n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const AlignStep& q = alignment.steps[size_t(paired[size_t(r)])];
    for (Eigen::Index c = 0; c < n; ++c) {
      const AlignStep& k = alignment.steps[size_t(paired[size_t(c)])];
      out(r, c) = b(q.b, k.b) - a(q.a, k.a);
    }
  }
  return out;
}

std::vector<std::string> paired_labels(const TokenAlignment& alignment, const std::vector<std::string>& a,
                                       const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const int k : alignment.paired_steps()) {
    const AlignStep& s = alignment.steps[size_t(k)];
    out.push_back(s.op == AlignOp::same ? a[size_t(s.a)] : a[size_t(s.a)] + "\u2192" + b[size_t(s.b)]);
  }
  return out;
}

}  // namespace hs
