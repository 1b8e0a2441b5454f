#pragma once
// Drawing a map smaller than its cells without losing a peak: every drawn pixel shows the largest
// value of the cells it covers. The one rule shared by the app's shader (shaders/heatmap.frag.glsl)
// and the CPU renderer (PNG figures), so both keep the same peaks:
//
//   n cells drawn on m < n pixels: pixel p covers cells [floor(p n / m), ceil((p + 1) n / m))
//
// (blocks overlap by at most a cell where n / m is not whole, so every cell is in some pixel).
#include "core/util/tensor.h"

namespace hs {

// First and one-past-last cell that pixel p covers when n cells are drawn on m pixels (m <= n).
inline int reduce_first(int p, int n, int m) { return int(int64_t(p) * n / m); }
inline int reduce_end(int p, int n, int m) { return int((int64_t(p + 1) * n + m - 1) / m); }

// [rows, cols] -> [out_rows, out_cols] (each at most the input's), the largest value of each
// covered block; NaN counts as 0. A block of masked cells only (t < 0) keeps that value; one
// masked cell among others does not count. With out = in, a copy.
Map block_max(const Map& t, int out_rows, int out_cols);

// The cell with the largest value among those pixel (prow, pcol) covers, for hover text.
struct BlockPeak {
  int row0 = 0, row1 = 0, col0 = 0, col1 = 0;  // the block, [row0, row1) x [col0, col1)
  int row = 0, col = 0;                        // its largest cell (the first on ties)
};
BlockPeak block_peak(const Map& values, int prow, int pcol, int out_rows, int out_cols);

}  // namespace hs
