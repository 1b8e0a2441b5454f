#pragma once
// A laid-out figure and how it becomes PNG, SVG or PDF bytes: one drawing function, run on
// a cairo image, SVG or PDF surface. Sizes are in points (1/72 inch).
#include <functional>
#include <string>

namespace hs {

class Canvas;

enum class FigureFormat { png, svg, pdf };

struct Figure {
  std::string title;             // also the document title of SVG and PDF files
  double width = 0, height = 0;  // natural size, points
  std::function<void(Canvas&)> draw;
};

// PNG pixels per point at scale 1 (144 dpi): sharp on screens and in print.
constexpr double kPngPixelsPerPoint = 2.0;
// Cairo's largest image surface side.
constexpr int kMaxPngSide = 32767;

struct FigureSize {
  double scale = 1.0;         // multiplies the natural size in every format
  int width = 0, height = 0;  // > 0: the output's size (PNG pixels, SVG/PDF points); the figure
                              // is scaled uniformly to fit and centred. One of them alone keeps
                              // the aspect ratio.
};

// Throws InputError for a bad scale or size (naming the value), IoError if cairo fails.
std::string render_figure(const Figure& figure, FigureFormat format, const FigureSize& size);

}  // namespace hs
