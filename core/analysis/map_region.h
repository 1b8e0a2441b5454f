#pragma once
// Part of one head's map at the finest detail there is: what the app shows when a map is zoomed.
// With whole maps a region is a slice of the map; in long-input mode no [T, T] map exists, so the
// region's query rows are recomputed exactly from the q and k the run kept (ExactAttention), and
// zoomed in far enough every cell is exact, at any length. A region larger than `max_cells` per
// side is shown as block maxima (each cell the largest weight of f x f tokens), so no peak is lost.
#include <functional>
#include <string>
#include <vector>

#include "core/model/model_run.h"

namespace hs {

// Tokens [row0, row1) (queries) x [col0, col1) (keys).
struct TokenRegion {
  int row0 = 0, row1 = 0, col0 = 0, col1 = 0;
  int rows() const { return row1 - row0; }
  int cols() const { return col1 - col0; }
  bool operator==(const TokenRegion& o) const { return row0 == o.row0 && row1 == o.row1 && col0 == o.col0 && col1 == o.col1; }
};

struct RegionMap {
  TokenRegion region;  // the tokens the cells cover (a coarse region: widened to whole display blocks)
  int factor = 1;      // tokens per cell side: 1 = one cell per (query, key)
  // True: the finest detail this region gets at max_cells (whole maps, recomputed rows, or display
  // blocks where nothing finer fits); false: coarse_region's display blocks while finer ones are computed.
  bool exact = true;
  // cells: [ceil(rows / f), ceil(cols / f)]; cell (p, q) is the largest weight of queries
  // row0 + [p f, (p + 1) f) and keys col0 + [q f, (q + 1) f), clipped to the region.
  Map cells;
  std::vector<std::string> row_labels, col_labels;  // a token, or "i-j" for a block of tokens

  int row_token(int cell) const { return region.row0 + cell * factor; }
  int col_token(int cell) const { return region.col0 + cell * factor; }
  // The tokens of cell (r, c): [row_token(r), ...) clipped to the region.
  TokenRegion cell_tokens(int r, int c) const;
};

// `region` clipped to the run's tokens, at least one token a side.
TokenRegion clip_region(const AttentionRun& run, TokenRegion region);

// The region exactly, at most `max_cells` cells a side (f = ceil(side / max_cells)). Whole maps:
// from the map. Long-input mode: rows recomputed, O(rows x T x d_head); where f would not be finer
// than the run's display blocks, coarse_region() instead (nothing finer to gain).
RegionMap exact_region(const AttentionRun& run, int layer, int head, TokenRegion region, int max_cells);

// At once, from what the run holds: whole maps as exact_region(); long-input mode the display
// map's blocks that cover the region (exact = false).
RegionMap coarse_region(const AttentionRun& run, int layer, int head, TokenRegion region, int max_cells);

// One head's exact [T, T] map (an opened head). Whole maps: a copy of the run's map. Long-input
// mode: every row recomputed from the run's q and k (ExactAttention, the cells exact_region gives),
// kExactMapRows rows at a time; after each block progress(rows done, T) is called, and false from it
// stops the work: the function returns false and `out` holds only the rows done. T^2 floats (64 MiB
// at T = 4096), T x T x d_head multiply-adds.
constexpr int kExactMapRows = 64;
bool exact_head_map(const AttentionRun& run, int layer, int head, Map& out,
                    const std::function<bool(int done, int total)>& progress = {});

// The region of a head's whole exact map `map` ([T, T], e.g. exact_head_map's), as exact_region
// gives it: at most `max_cells` cells a side, each the largest weight of its tokens.
RegionMap region_of_map(const AttentionRun& run, const Map& map, TokenRegion region, int max_cells);

// A head's whole exact map (exact_head_map's) as a region of factor 1 with the token labels; takes `map`.
RegionMap whole_map_region(const AttentionRun& run, Map&& map);

// The strongest (query, key) cell of a block of tokens, exactly (long-input mode: recomputed rows).
struct CellPeak {
  int row = -1, col = -1;
  float value = 0;
};
CellPeak strongest_cell(const AttentionRun& run, int layer, int head, TokenRegion block);

}  // namespace hs
