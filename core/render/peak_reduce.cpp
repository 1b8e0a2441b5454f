#include "core/render/peak_reduce.h"

#include <algorithm>
#include <cmath>

namespace hs {

Map block_max(const Map& t, int out_rows, int out_cols) {
  const int rows = int(t.rows()), cols = int(t.cols());
  out_rows = std::clamp(out_rows, 1, std::max(rows, 1));
  out_cols = std::clamp(out_cols, 1, std::max(cols, 1));
  Map out = Map::Zero(out_rows, out_cols);  // [out_rows, out_cols]
  if (rows == 0 || cols == 0) return out;
  for (int pr = 0; pr < out_rows; ++pr) {
    const int r0 = reduce_first(pr, rows, out_rows), r1 = reduce_end(pr, rows, out_rows);
    for (int pc = 0; pc < out_cols; ++pc) {
      const int c0 = reduce_first(pc, cols, out_cols), c1 = reduce_end(pc, cols, out_cols);
      float m = 0.0f;
      bool masked = true;  // every cell masked (t < 0, colormap.h's kMaskedT): the block is too
      for (int r = r0; r < r1; ++r)
        for (int c = c0; c < c1; ++c) {
          const float v = t(r, c);
          if (!(v < 0.0f)) masked = false;
          if (v > m) m = v;  // NaN never wins
        }
      out(pr, pc) = masked ? t(r0, c0) : m;
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
