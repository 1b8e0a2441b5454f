#include "core/render/peak_reduce.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hs {

Map block_max(const Map& t, int out_rows, int out_cols) {
  const int rows = int(t.rows()), cols = int(t.cols());
  out_rows = std::clamp(out_rows, 1, std::max(rows, 1));
  out_cols = std::clamp(out_cols, 1, std::max(cols, 1));
  Map out = Map::Zero(out_rows, out_cols);  // [out_rows, out_cols]
  if (rows == 0 || cols == 0) return out;
  // For each band of rows: first the largest value of each column over the band (one pass over the
  // rows, elementwise: vectorised), then of each block of columns. The app reduces 144 maps of
  // 257 x 257 cells per keystroke on a GPT-2-small-shaped model. With NaN taken as 0, a block is
  // masked exactly when its largest value is below 0, and otherwise shows that largest value.
  std::vector<int> c0(static_cast<size_t>(out_cols)), c1(static_cast<size_t>(out_cols));
  for (int pc = 0; pc < out_cols; ++pc) c0[size_t(pc)] = reduce_first(pc, cols, out_cols), c1[size_t(pc)] = reduce_end(pc, cols, out_cols);
  std::vector<float> band(static_cast<size_t>(cols));
  for (int pr = 0; pr < out_rows; ++pr) {
    const int r0 = reduce_first(pr, rows, out_rows), r1 = reduce_end(pr, rows, out_rows);
    float* __restrict b = band.data();
    std::fill(b, b + cols, -INFINITY);
    for (int r = r0; r < r1; ++r) {
      const float* __restrict row = t.data() + int64_t(r) * cols;
      for (int c = 0; c < cols; ++c) {
        const float v = row[c] == row[c] ? row[c] : 0.0f;  // NaN -> 0
        b[c] = v > b[c] ? v : b[c];
      }
    }
    for (int pc = 0; pc < out_cols; ++pc) {
      float best = -INFINITY;
      for (int c = c0[size_t(pc)]; c < c1[size_t(pc)]; ++c) best = b[c] > best ? b[c] : best;
      // Every cell masked (t < 0, colormap.h's kMaskedT): the block is too.
      out(pr, pc) = best < 0.0f ? t(r0, c0[size_t(pc)]) : best;
    }
  }
  return out;
}

BlockPeak block_peak(const Map& values, int prow, int pcol, int out_rows, int out_cols) {
  BlockPeak b;
  const int rows = int(values.rows()), cols = int(values.cols());
  if (rows == 0 || cols == 0) return b;
  out_rows = std::clamp(out_rows, 1, rows);
  out_cols = std::clamp(out_cols, 1, cols);
  prow = std::clamp(prow, 0, out_rows - 1);
  pcol = std::clamp(pcol, 0, out_cols - 1);
  b.row0 = reduce_first(prow, rows, out_rows), b.row1 = reduce_end(prow, rows, out_rows);
  b.col0 = reduce_first(pcol, cols, out_cols), b.col1 = reduce_end(pcol, cols, out_cols);
  b.row = b.row0, b.col = b.col0;
  float best = -INFINITY;
  for (int r = b.row0; r < b.row1; ++r)
    for (int c = b.col0; c < b.col1; ++c)
      if (values(r, c) > best) best = values(r, c), b.row = r, b.col = c;
  return b;
}

}  // namespace hs
