#pragma once
// A laid-out figure and how it becomes PNG, SVG or PDF bytes: one drawing function, run on
// a cairo image, SVG or PDF surface. Sizes are in points (1/72 inch).
#include <functional>
#include <string>
#include <vector>

namespace hs {

class Canvas;

enum class FigureFormat { png, svg, pdf };

// Where a block of map cells is drawn, in figure points: cell (i, j) covers
// [x + j * width / cols, x + (j + 1) * width / cols] x [y + i * height / rows, ...].
// For tests (colour at a known cell) and for mapping a click to a cell.
struct CellBlock {
  double x = 0, y = 0, width = 0, height = 0;
  int rows = 0, cols = 0;
};

struct Figure {
  std::string title;             // also the document title of SVG and PDF files
  std::string font;              // the text's font family ("" DejaVu Sans; FigureStyle::font)
  double width = 0, height = 0;  // natural size, points
  std::vector<CellBlock> cells;  // heatmaps: one block per head shown, in head order
  std::vector<std::string> notes;  // what the layout could not do as asked ("labels: every one asked for, ...")
  std::function<void(Canvas&)> draw;
};

// Output units (PNG pixels, SVG/PDF points) per figure point and the offset that centres the
// figure, for a figure rendered at `size`: output = offset + k * point.
struct FigurePlacement {
  double out_w = 0, out_h = 0;
  double k = 1;
  double ox = 0, oy = 0;
};

// PNG pixels per point at scale 1 (144 dpi): sharp on screens and in print.
constexpr double kPngPixelsPerPoint = 2.0;
// Cairo's largest image surface side, and a cap on memory (4 bytes a pixel: 400 MB).
constexpr int kMaxPngSide = 32767;
constexpr double kMaxPngPixels = 100e6;

struct FigureSize {
  double scale = 1.0;         // multiplies the natural size in every format
  int width = 0, height = 0;  // > 0: the output's size (PNG pixels, SVG/PDF points); the figure
                              // is scaled uniformly to fit and centred. One of them alone keeps
                              // the aspect ratio.
  std::string pdf_subject;    // PDF: the document's Subject (export writes its provenance there)
};

// Figures in a row, tops aligned, `gap` points apart; the title is the first part's. Cell blocks
// are moved along.
Figure figures_side_by_side(const std::vector<Figure>& parts, double gap);
// Side by side, or stacked (left edges aligned, `gap` points between them).
Figure figures_in_line(const std::vector<Figure>& parts, double gap, bool stacked);

FigurePlacement figure_placement(const Figure& figure, FigureFormat format, const FigureSize& size);

// Throws InputError for a bad scale or size (naming the value), IoError if cairo fails.
std::string render_figure(const Figure& figure, FigureFormat format, const FigureSize& size);

}  // namespace hs
