#include "core/analysis/map_region.h"

#include <algorithm>
#include <cmath>

#include "core/util/errors.h"

namespace hs {
namespace {

std::vector<std::string> region_labels(const AttentionRun& run, int first, int end, int f) {
  std::vector<std::string> labels;
  for (int a = first; a < end; a += f) {
    if (f == 1) labels.push_back(run.tokens[size_t(a)]);
    else labels.push_back(std::to_string(a) + "-" + std::to_string(std::min(end, a + f) - 1));
  }
  return labels;
}

int div_up(int a, int b) { return (a + b - 1) / b; }

void check_head(const AttentionRun& run, int layer, int head) {
  if (layer < 0 || layer >= run.n_layers() || head < 0 || head >= run.n_heads())
    throw InputError("no map for layer " + std::to_string(layer) + ", head " + std::to_string(head) + " (the run has " +
                     std::to_string(run.n_layers()) + " layers of " + std::to_string(run.n_heads()) + " heads)");
}

// Block maxima of rows [r0, r1) of a source that gives one row of keys [0, T) at a time.
template <typename RowFn>
RegionMap reduce_rows(const AttentionRun& run, TokenRegion r, int f, RowFn&& row_of) {
  RegionMap out;
  out.region = r;
  out.factor = f;
  out.cells = Map::Zero(div_up(r.rows(), f), div_up(r.cols(), f));  // [P, Q]
  for (int i = r.row0; i < r.row1; ++i) {
    const float* row = row_of(i);  // [T]
    const int p = (i - r.row0) / f;
    for (int j = r.col0; j < r.col1; ++j) {
      float& c = out.cells(p, (j - r.col0) / f);
      if (row[j] > c) c = row[j];  // NaN never wins
    }
  }
  out.row_labels = region_labels(run, r.row0, r.row1, f);
  out.col_labels = region_labels(run, r.col0, r.col1, f);
  return out;
}

}  // namespace

TokenRegion RegionMap::cell_tokens(int r, int c) const {
  TokenRegion t;
  t.row0 = row_token(r), t.row1 = std::min(region.row1, t.row0 + factor);
  t.col0 = col_token(c), t.col1 = std::min(region.col1, t.col0 + factor);
  return t;
}

TokenRegion clip_region(const AttentionRun& run, TokenRegion r) {
  const int T = std::max(run.n_tokens(), 1);
  r.row0 = std::clamp(r.row0, 0, T - 1), r.col0 = std::clamp(r.col0, 0, T - 1);
  r.row1 = std::clamp(r.row1, r.row0 + 1, T), r.col1 = std::clamp(r.col1, r.col0 + 1, T);
  return r;
}

RegionMap coarse_region(const AttentionRun& run, int layer, int head, TokenRegion region, int max_cells) {
  check_head(run, layer, head);
  const TokenRegion r = clip_region(run, region);
  const int f = std::max(1, div_up(std::max(r.rows(), r.cols()), std::max(max_cells, 1)));
  const Map& m = run.attention[size_t(layer)][size_t(head)];
  if (!run.compact()) return reduce_rows(run, r, f, [&](int i) { return m.data() + int64_t(i) * m.cols(); });
  // The display blocks of F tokens that cover the region, reduced further when they are too many.
  const int F = std::max(1, run.map_factor), T = run.n_tokens();
  const int p0 = r.row0 / F, p1 = div_up(r.row1, F), q0 = r.col0 / F, q1 = div_up(r.col1, F);
  const int g = std::max(1, div_up(std::max(p1 - p0, q1 - q0), std::max(max_cells, 1)));
  RegionMap out;
  out.region = {p0 * F, std::min(T, p1 * F), q0 * F, std::min(T, q1 * F)};
  out.factor = F * g;
  out.exact = false;
  out.cells = Map::Zero(div_up(p1 - p0, g), div_up(q1 - q0, g));
  for (int p = p0; p < p1; ++p)
    for (int q = q0; q < q1; ++q) {
      float& c = out.cells((p - p0) / g, (q - q0) / g);
      c = std::max(c, m(p, q));
    }
  out.row_labels = region_labels(run, out.region.row0, out.region.row1, out.factor);
  out.col_labels = region_labels(run, out.region.col0, out.region.col1, out.factor);
  return out;
}

RegionMap exact_region(const AttentionRun& run, int layer, int head, TokenRegion region, int max_cells) {
  check_head(run, layer, head);
  const TokenRegion r = clip_region(run, region);
  const int f = std::max(1, div_up(std::max(r.rows(), r.cols()), std::max(max_cells, 1)));
  if (!run.compact() || f >= run.map_factor) {
    // No finer blocks fit: the display blocks are the region's final detail.
    RegionMap m = coarse_region(run, layer, head, region, max_cells);
    m.exact = true;
    return m;
  }
  Vec row;  // [T], row i of A_h recomputed from q and k
  return reduce_rows(run, r, f, [&](int i) {
    row = run.exact->row(layer, head, i);
    return row.data();
  });
}

bool exact_head_map(const AttentionRun& run, int layer, int head, Map& out,
                    const std::function<bool(int, int)>& progress) {
  check_head(run, layer, head);
  const int T = run.n_tokens();
  if (!run.compact()) {
    out = run.attention[size_t(layer)][size_t(head)];
    return !progress || progress(T, T);
  }
  out.resize(T, T);  // out: [T, T], row = query i, col = key j, rows sum to 1 (zeros where masked)
  for (int i0 = 0; i0 < T; i0 += kExactMapRows) {
    const int i1 = std::min(T, i0 + kExactMapRows);
    for (int i = i0; i < i1; ++i) out.row(i) = run.exact->row(layer, head, i).transpose();
    if (progress && !progress(i1, T)) return false;
  }
  return true;
}

RegionMap region_of_map(const AttentionRun& run, const Map& map, TokenRegion region, int max_cells) {
  const int T = run.n_tokens();
  if (map.rows() != T || map.cols() != T)
    throw InputError("a map of " + std::to_string(map.rows()) + " x " + std::to_string(map.cols()) + " cells for a run of " +
                     std::to_string(T) + " tokens: expected " + std::to_string(T) + " x " + std::to_string(T));
  const TokenRegion r = clip_region(run, region);
  const int f = std::max(1, div_up(std::max(r.rows(), r.cols()), std::max(max_cells, 1)));
  return reduce_rows(run, r, f, [&](int i) { return map.data() + int64_t(i) * map.cols(); });
}

RegionMap whole_map_region(const AttentionRun& run, Map&& map) {
  const int T = run.n_tokens();
  if (map.rows() != T || map.cols() != T)
    throw InputError("a map of " + std::to_string(map.rows()) + " x " + std::to_string(map.cols()) + " cells for a run of " +
                     std::to_string(T) + " tokens: expected " + std::to_string(T) + " x " + std::to_string(T));
  RegionMap out;
  out.region = {0, T, 0, T};
  out.cells = std::move(map);
  out.row_labels = out.col_labels = region_labels(run, 0, T, 1);
  return out;
}

CellPeak strongest_cell(const AttentionRun& run, int layer, int head, TokenRegion block) {
  check_head(run, layer, head);
  const TokenRegion r = clip_region(run, block);
  const Map& m = run.attention[size_t(layer)][size_t(head)];
  CellPeak best;
  best.value = -INFINITY;
  Vec row;
  for (int i = r.row0; i < r.row1; ++i) {
    const float* a = nullptr;
    if (run.compact()) {
      row = run.exact->row(layer, head, i);
      a = row.data();
    } else {
      a = m.data() + int64_t(i) * m.cols();
    }
    for (int j = r.col0; j < r.col1; ++j)
      if (a[j] > best.value) best.value = a[j], best.row = i, best.col = j;
  }
  if (best.row < 0) best = CellPeak{r.row0, r.col0, 0.0f};
  return best;
}

}  // namespace hs
