#pragma once
// A table of numbers as a heatmap: rows x columns of coloured cells, each with its number written
// in it when the cell holds it, named rows and columns, a colour bar, a title and an optional
// caption under the map. The head difference/distance table (difference_figure.h) and the head
// roles map (roles_figure.h) are both drawn by it.
// Natural layout: cells of `natural_cell` points and the long-standing sizes. A style with a page
// size (FigureStyle::sized) lays the table out for that page instead: text at the style's point
// size (8 pt unless --font-size; never below 6 pt), the largest cells that fit, centred.
#include <string>
#include <vector>

#include "core/analysis/head_clustering.h"
#include "core/render/colour_scale.h"
#include "core/render/figure.h"
#include "core/render/figure_parts.h"
#include "core/render/figure_style.h"

namespace hs {

struct TableFigure {
  std::string title;
  Map values;  // [rows, cols]; NaN: no value (grey, a dash)
  std::vector<std::string> row_names, col_names;
  std::string row_axis, col_axis;  // "head a", "head b"
  ColourBar bar;                   // colormap, range and title (a style's colorbar_label wins)
  int decimals = 3;                // of the numbers in the cells
  std::string caption;             // under the map, wrapped to the figure's width; "" none
  double natural_cell = 24;        // points, the natural layout's cell side
  double min_bar_height = 0;       // points, the natural layout's least colour bar height
  // Laid out for a page, the columns widen into the width that square cells leave (a tall table of
  // few columns, such as every head x the 8 roles, keeps every column's label).
  bool stretch_columns = false;
  // A dendrogram over the columns, drawn in a band between the title and the cells: the merges of
  // cluster_heads (head_clustering.h) whose leaf order is the columns' order; empty: none.
  std::vector<ClusterMerge> dendrogram;
  // The colour range starts at bar.lo (a sequential colormap): a value v takes the colour of
  // (v - lo) / (hi - lo); below lo the first colour. Diverging colormaps stay symmetric about 0.
};

// A layers x heads table of `values` ([n_layers, n_heads], NaN: no value): rows "L0", ...,
// columns "h0", ..., cells sized for the natural layout; the caller adds title, bar and caption.
TableFigure layers_heads_table(Map values);
// Natural cell side for a table of rows x cols: 12 to 44 points, the table within 900.
double natural_table_cell(int rows, int cols);

// InputError naming the page when it is too small for the table at the style's text size.
Figure table_figure(const TableFigure& table, const FigureStyle& style = {});


}  // namespace hs
