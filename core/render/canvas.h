#pragma once
// What figures draw on: a cairo context (image, SVG or PDF surface) with the few primitives
// figures need, in points. Text uses DejaVu Sans by name through cairo's font selection, or the
// family a figure's style names (FigureStyle::font, checked by check_font_family).
// For SVG, text is not drawn as glyph outlines (cairo's SVG surface would turn it into
// <symbol>/<use> paths) but recorded, and svg_text_layer() turns the record into real
// <text> elements: labels stay searchable, selectable and editable.
// Characters DejaVu Sans lacks (CJK, emoji, ...) are drawn with the first installed fallback
// family that has them (kFallbackFamilies), so tokens stay intact wherever a font exists.
// Internal to core/render (it includes cairo, which headscope_core links privately).
#include <cairo.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/render/colormap.h"

namespace hs {

// Resolution of the heatmap images embedded in SVG and PDF figures, at the figure's size.
constexpr double kVectorImageDpi = 300;

enum class HAlign { left, center, right };
enum class VAlign { baseline, middle, top, bottom };

struct TextStyle {
  double size = 9;  // points
  bool bold = false;
  Rgb8 colour = {0, 0, 0};
};

// One recorded text item in device units: the anchor is on the baseline.
struct TextRun {
  double x = 0, y = 0;
  double size = 0;
  bool vertical = false;  // reads bottom to top (rotated -90 degrees)
  HAlign align = HAlign::left;
  TextStyle style;
  std::string text;
};

class Canvas {
 public:
  // record_text: text is recorded for svg_text_layer() instead of drawn. family: the text's font
  // family ("" DejaVu Sans); characters it lacks fall back as above.
  Canvas(cairo_t* cr, bool record_text, std::string family = {});

  void fill_rect(double x, double y, double w, double h, Rgb8 colour);
  void stroke_rect(double x, double y, double w, double h, Rgb8 colour, double line_width);
  void line(double x0, double y0, double x1, double y1, Rgb8 colour, double line_width, bool dashed = false);
  void circle(double x, double y, double radius, Rgb8 colour);
  // A rows x cols block of cells, row-major colours, filling [x, x+w] x [y, y+h].
  // SVG and PDF: one embedded image, scaled nearest-neighbour (as matplotlib's imshow), so
  // files stay small. PNG: blocks of up to max_rect_cells() cells are rectangles, larger ones
  // one image.
  void cells(double x, double y, double w, double h, int rows, int cols, const std::vector<Rgb8>& colours);

  // Whole device pixels `length` points take on a raster (PNG) surface; 0 on vector surfaces.
  int raster_pixels(double length) const;
  // Pixels an embedded image of `length` points gets: PNG, the device pixels; SVG and PDF, the
  // pixels at kVectorImageDpi (a map with more cells than that is drawn as block maxima).
  int image_pixels(double length) const;
  bool is_vector() const;
  const std::string& family() const { return family_; }  // "" DejaVu Sans
  // Moves the origin by (dx, dy) points for what is drawn next (a figure placed inside another).
  void translate(double dx, double dy);

  double text_width(const std::string& text, const TextStyle& style);
  // Whether one of the families text is drawn in has a glyph for the code point (else a box).
  bool has_glyph(uint32_t code_point) { return covering_family(code_point, TextStyle{}) >= 0; }
  // (x, y) is the anchor; with `vertical` the text reads bottom to top and the alignments
  // apply along and across its own (rotated) baseline.
  void text(double x, double y, const std::string& text, const TextStyle& style, HAlign h, VAlign v,
            bool vertical = false);

  const std::vector<TextRun>& recorded_text() const { return recorded_; }
  long max_rect_cells() const { return max_rect_cells_; }
  void set_max_rect_cells(long n) { max_rect_cells_ = n; }

 private:
  struct FontRun {
    int family = 0;  // index into the families tried: 0 is family_ (DejaVu Sans by default)
    std::string text;
  };
  void set_font(const TextStyle& style, int family = 0);
  // Splits text into runs that one family can draw.
  std::vector<FontRun> font_runs(const std::string& text, const TextStyle& style);
  int family_for(uint32_t code_point, const TextStyle& style);
  int covering_family(uint32_t code_point, const TextStyle& style);  // -1: none has it

  cairo_t* cr_;
  bool record_text_;
  std::string family_;
  long max_rect_cells_ = 40000;
  std::vector<TextRun> recorded_;
  std::unordered_map<uint64_t, int> family_cache_;  // (code point, bold) -> family index
};

// A scratch canvas for measuring text while laying a figure out (no output).
class MeasureCanvas {
 public:
  explicit MeasureCanvas(const std::string& family = {});  // "" DejaVu Sans
  ~MeasureCanvas();
  MeasureCanvas(const MeasureCanvas&) = delete;
  MeasureCanvas& operator=(const MeasureCanvas&) = delete;
  // Unhinted advances scale with the size: each text is measured once per weight (cached).
  double width(const std::string& text, const TextStyle& style);
  bool has_glyph(uint32_t code_point) { return canvas_.has_glyph(code_point); }

 private:
  cairo_surface_t* surface_;
  cairo_t* cr_;
  Canvas canvas_;
  std::unordered_map<std::string, double> widths_;  // (bold, text) -> width at 100 pt
};

// Text for XML: &, <, >, " escaped; control characters (not allowed in XML) become U+FFFD.
std::string svg_escape(const std::string& text);

// The recorded text as one SVG <g> of <text> elements (font-family `family`, "" DejaVu Sans).
std::string svg_text_layer(const std::vector<TextRun>& runs, const std::string& family = {});

}  // namespace hs
