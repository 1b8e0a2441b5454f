#include "core/render/figure.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>

#include <algorithm>
#include <cmath>

#include "core/render/canvas.h"
#include "core/util/utf8.h"
#include "core/util/errors.h"

namespace hs {
namespace {

using Placement = FigurePlacement;

Placement place(const Figure& fig, FigureFormat format, const FigureSize& size) {
  if (!(size.scale > 0) || !std::isfinite(size.scale) || size.scale > 100) {
    throw InputError("scale (" + std::to_string(size.scale) + ") must be greater than 0 and at most 100");
  }
  if (size.width < 0 || size.height < 0) {
    throw InputError("size (" + std::to_string(size.width) + "x" + std::to_string(size.height) + ") must be positive");
  }
  const double unit = format == FigureFormat::png ? kPngPixelsPerPoint : 1.0;
  Placement p;
  if (size.width > 0 && size.height > 0) {
    p.k = std::min(size.width / fig.width, size.height / fig.height);
    p.out_w = size.width;
    p.out_h = size.height;
  } else if (size.width > 0) {
    p.k = size.width / fig.width;
    p.out_w = size.width;
    p.out_h = std::ceil(fig.height * p.k);
  } else if (size.height > 0) {
    p.k = size.height / fig.height;
    p.out_h = size.height;
    p.out_w = std::ceil(fig.width * p.k);
  } else {
    p.k = unit * size.scale;
    p.out_w = fig.width * p.k;
    p.out_h = fig.height * p.k;
  }
  if (format == FigureFormat::png) {
    p.out_w = std::ceil(p.out_w - 1e-6);
    p.out_h = std::ceil(p.out_h - 1e-6);
    if (p.out_w > kMaxPngSide || p.out_h > kMaxPngSide || p.out_w < 1 || p.out_h < 1 ||
        p.out_w * p.out_h > kMaxPngPixels) {
      throw InputError("the PNG would be " + std::to_string(long(p.out_w)) + "x" + std::to_string(long(p.out_h)) +
                       " pixels; each side must be 1 to " + std::to_string(kMaxPngSide) + ", at most " +
                       std::to_string(long(kMaxPngPixels / 1e6)) + " million pixels in all" +
                       " (use a smaller --figure-scale or --size WxH)");
    }
  }
  p.ox = 0.5 * (p.out_w - fig.width * p.k);
  p.oy = 0.5 * (p.out_h - fig.height * p.k);
  return p;
}

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

// White page, the figure's transform, the drawing; returns the recorded text (SVG).
std::vector<TextRun> draw_on(cairo_surface_t* surface, const Figure& fig, const Placement& p, bool record_text) {
  cairo_t* cr = cairo_create(surface);
  if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_status(cr));
    cairo_destroy(cr);
    throw IoError("cannot draw the figure: " + why);
  }
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_translate(cr, p.ox, p.oy);
  cairo_scale(cr, p.k, p.k);
  std::vector<TextRun> text;
  try {
    Canvas canvas(cr, record_text, fig.font);
    fig.draw(canvas);  // may refuse (a cell image past cairo's limits)
    text = canvas.recorded_text();
  } catch (...) {
    cairo_destroy(cr);
    throw;
  }
  const cairo_status_t status = cairo_status(cr);
  cairo_destroy(cr);
  if (status != CAIRO_STATUS_SUCCESS) throw IoError(std::string("cannot draw the figure: ") + cairo_status_to_string(status));
  return text;
}

// Every surface cairo makes is checked before use: a failed one is an inert object in an error
// state (an image surface's buffer is then NULL).
void check(cairo_surface_t* surface, const char* what, const Placement& p) {
  const cairo_status_t status = cairo_surface_status(surface);
  if (status == CAIRO_STATUS_SUCCESS) return;
  cairo_surface_destroy(surface);
  const std::string size = std::to_string(long(p.out_w)) + "x" + std::to_string(long(p.out_h));
  if (status == CAIRO_STATUS_NO_MEMORY || status == CAIRO_STATUS_INVALID_SIZE) {
    throw InputError(std::string("cannot make the ") + size + " " + what + ": " + cairo_status_to_string(status) +
                     " (use a smaller --figure-scale or --size WxH)");
  }
  throw IoError(std::string("cannot make the ") + what + ": " + cairo_status_to_string(status));
}

std::string render_png(const Figure& fig, const Placement& p) {
  cairo_surface_t* s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, int(p.out_w), int(p.out_h));
  check(s, "PNG image", p);
  std::string bytes;
  try {
    draw_on(s, fig, p, false);
  } catch (...) {
    cairo_surface_destroy(s);
    throw;
  }
  const cairo_status_t status = cairo_surface_write_to_png_stream(s, append_bytes, &bytes);
  cairo_surface_destroy(s);
  if (status != CAIRO_STATUS_SUCCESS) throw IoError(std::string("cannot encode the PNG: ") + cairo_status_to_string(status));
  return bytes;
}

std::string render_pdf(const Figure& fig, const Placement& p, const std::string& subject) {
  std::string bytes;
  cairo_surface_t* s = cairo_pdf_surface_create_for_stream(append_bytes, &bytes, p.out_w, p.out_h);
  check(s, "PDF", p);
  cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, utf8_repair(fig.title).c_str());
  cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "headscope");
  if (!subject.empty()) {
    cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_SUBJECT, utf8_repair(subject).c_str());
    cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_KEYWORDS, "headscope-provenance");
  }
  try {
    draw_on(s, fig, p, false);
  } catch (...) {
    cairo_surface_destroy(s);
    throw;
  }
  cairo_surface_finish(s);
  check(s, "PDF", p);
  cairo_surface_destroy(s);
  return bytes;
}

// Cairo draws the shapes (cells stay rectangles); the text is added as <text> elements just
// before the closing </svg>, on top, where the other formats draw it too.
std::string render_svg(const Figure& fig, const Placement& p) {
  std::string bytes;
  cairo_surface_t* s = cairo_svg_surface_create_for_stream(append_bytes, &bytes, p.out_w, p.out_h);
  check(s, "SVG", p);
  cairo_svg_surface_restrict_to_version(s, CAIRO_SVG_VERSION_1_1);
  std::vector<TextRun> text;
  try {
    text = draw_on(s, fig, p, true);
  } catch (...) {
    cairo_surface_destroy(s);
    throw;
  }
  cairo_surface_finish(s);
  check(s, "SVG", p);
  cairo_surface_destroy(s);
  const size_t end = bytes.rfind("</svg>");
  const size_t open = bytes.find("<svg");
  const size_t open_end = open == std::string::npos ? open : bytes.find('>', open);
  if (end == std::string::npos || open_end == std::string::npos || open_end > end) {
    throw IoError("cannot make the SVG: cairo's output has no <svg> element");
  }
  bytes.insert(end, svg_text_layer(text, fig.font));
  // Heatmaps are embedded images: scaled nearest-neighbour in every viewer that reads either
  // spelling (SVG 1.1's optimizeSpeed; CSS's pixelated), as the PNG and the screen draw them.
  const std::string crisp = "<image image-rendering=\"optimizeSpeed\" style=\"image-rendering:pixelated\" ";
  for (size_t at = bytes.find("<image "); at != std::string::npos; at = bytes.find("<image ", at + crisp.size())) {
    bytes.replace(at, 7, crisp);
  }
  bytes.insert(open_end + 1, "\n<title>" + svg_escape(fig.title) + "</title>");
  return bytes;
}

}  // namespace

FigurePlacement figure_placement(const Figure& figure, FigureFormat format, const FigureSize& size) {
  return place(figure, format, size);
}

std::string render_figure(const Figure& figure, FigureFormat format, const FigureSize& size) {
  const Placement p = place(figure, format, size);
  switch (format) {
    case FigureFormat::png: return render_png(figure, p);
    case FigureFormat::pdf: return render_pdf(figure, p, size.pdf_subject);
    case FigureFormat::svg: return render_svg(figure, p);
  }
  return {};
}

Figure figures_in_line(const std::vector<Figure>& parts, double gap, bool stacked) {
  Figure fig;
  std::vector<double> at;  // each part's x (side by side) or y (stacked)
  for (const Figure& part : parts) {
    double& along = stacked ? fig.height : fig.width;
    double& across = stacked ? fig.width : fig.height;
    if (!at.empty()) along += gap;
    at.push_back(along);
    fig.notes.insert(fig.notes.end(), part.notes.begin(), part.notes.end());
    for (CellBlock b : part.cells) {
      (stacked ? b.y : b.x) += along;
      fig.cells.push_back(b);
    }
    along += stacked ? part.height : part.width;
    across = std::max(across, stacked ? part.width : part.height);
  }
  if (!parts.empty()) fig.title = parts.front().title, fig.font = parts.front().font;
  fig.draw = [parts, at, stacked](Canvas& c) {
    for (size_t k = 0; k < parts.size(); ++k) {
      const double dx = stacked ? 0 : at[k], dy = stacked ? at[k] : 0;
      c.translate(dx, dy);
      parts[k].draw(c);
      c.translate(-dx, -dy);
    }
  };
  return fig;
}

Figure figures_side_by_side(const std::vector<Figure>& parts, double gap) { return figures_in_line(parts, gap, false); }

}  // namespace hs
