#include "core/render/canvas.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/render/figure.h"
#include "core/util/errors.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

// DejaVu Sans first; then families that cover what it lacks. Fontconfig answers a family that
// is not installed with its default font, which the coverage check then rejects.
constexpr const char* kFamilies[] = {"DejaVu Sans",        "Noto Sans CJK SC", "Noto Sans CJK JP",
                                     "WenQuanYi Micro Hei", "WenQuanYi Zen Hei", "Droid Sans Fallback",
                                     "Noto Sans",           "FreeSans",         "Symbola",
                                     "Noto Emoji"};
constexpr int kFamilyCount = int(sizeof(kFamilies) / sizeof(kFamilies[0]));

// Marks that belong to the character before them (accents, joiners, variation selectors).
bool joins_previous(uint32_t cp) {
  return (cp >= 0x300 && cp <= 0x36f) || cp == 0x200d || (cp >= 0xfe00 && cp <= 0xfe0f) ||
         (cp >= 0x1f3fb && cp <= 0x1f3ff);
}

void set_colour(cairo_t* cr, Rgb8 c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

}  // namespace

Canvas::Canvas(cairo_t* cr, bool record_text, std::string family)
    : cr_(cr), record_text_(record_text), family_(family.empty() ? kFamilies[0] : std::move(family)) {
  // Unhinted metrics: the layout measured on a scratch surface holds on every surface.
  cairo_font_options_t* fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  cairo_set_font_options(cr_, fo);
  cairo_font_options_destroy(fo);
}

void Canvas::fill_rect(double x, double y, double w, double h, Rgb8 colour) {
  set_colour(cr_, colour);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_fill(cr_);
}

void Canvas::stroke_rect(double x, double y, double w, double h, Rgb8 colour, double line_width) {
  set_colour(cr_, colour);
  cairo_set_line_width(cr_, line_width);
  cairo_rectangle(cr_, x, y, w, h);
  cairo_stroke(cr_);
}

void Canvas::translate(double dx, double dy) { cairo_translate(cr_, dx, dy); }

void Canvas::line(double x0, double y0, double x1, double y1, Rgb8 colour, double line_width, bool dashed) {
  set_colour(cr_, colour);
  cairo_set_line_width(cr_, line_width);
  const double dash[] = {4.0 * line_width, 2.5 * line_width};
  cairo_set_dash(cr_, dash, dashed ? 2 : 0, 0);
  cairo_move_to(cr_, x0, y0);
  cairo_line_to(cr_, x1, y1);
  cairo_stroke(cr_);
  cairo_set_dash(cr_, nullptr, 0, 0);
}

void Canvas::circle(double x, double y, double radius, Rgb8 colour) {
  set_colour(cr_, colour);
  cairo_new_sub_path(cr_);
  cairo_arc(cr_, x, y, radius, 0, 2 * M_PI);
  cairo_fill(cr_);
}

int Canvas::raster_pixels(double length) const {
  if (cairo_surface_get_type(cairo_get_target(cr_)) != CAIRO_SURFACE_TYPE_IMAGE) return 0;
  double dx = length, dy = 0;
  cairo_user_to_device_distance(cr_, &dx, &dy);
  return int(std::floor(std::hypot(dx, dy) + 1e-6));
}

bool Canvas::is_vector() const { return cairo_surface_get_type(cairo_get_target(cr_)) != CAIRO_SURFACE_TYPE_IMAGE; }

int Canvas::image_pixels(double length) const {
  if (!is_vector()) return raster_pixels(length);
  double dx = length, dy = 0;
  cairo_user_to_device_distance(cr_, &dx, &dy);
  return std::max(1, int(std::floor(std::hypot(dx, dy) * kVectorImageDpi / 72.0 + 1e-6)));
}

void Canvas::cells(double x, double y, double w, double h, int rows, int cols, const std::vector<Rgb8>& colours) {
  if (rows <= 0 || cols <= 0) return;
  const double cw = w / cols, ch = h / rows;
  // SVG and PDF: always one image (a file of 8 heads x 42^2 cells stays small; text stays vector).
  if (!is_vector() && long(rows) * cols <= max_rect_cells_) {
    // Each cell overlaps its right and lower neighbour slightly (they paint over it), so
    // viewers that anti-alias rectangle edges show no seams; raster output is crisp.
    const double overlap = std::min(0.5 * std::min(cw, ch), 0.35);
    cairo_save(cr_);
    cairo_set_antialias(cr_, CAIRO_ANTIALIAS_NONE);
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < cols; ++j) {
        set_colour(cr_, colours[size_t(i) * size_t(cols) + size_t(j)]);
        cairo_rectangle(cr_, x + j * cw, y + i * ch, cw + (j + 1 < cols ? overlap : 0), ch + (i + 1 < rows ? overlap : 0));
        cairo_fill(cr_);
      }
    }
    cairo_restore(cr_);
    return;
  }
  // Each cell becomes s x s pixels: viewers that smooth embedded images (some ignore the
  // nearest-neighbour filter) then blur only a pixel at each cell edge. In SVG and PDF, s makes
  // the image about kVectorImageDpi at the figure's size (at most 8), so the file stays small.
  int s = std::clamp(2048 / std::max(rows, cols), 1, 8);
  if (is_vector()) s = std::clamp(image_pixels(std::max(w, h)) / std::max(rows, cols), 1, 8);
  // Cairo makes no image wider or taller than 32767 pixels, and a big one may not fit in memory:
  // either way the surface comes back in an error state with a NULL buffer. Refuse, naming the size.
  const std::string cells_text = std::to_string(rows) + " x " + std::to_string(cols) + " cells";
  if (int64_t(rows) * s > kMaxPngSide || int64_t(cols) * s > kMaxPngSide) {
    throw InputError("a map of " + cells_text + " does not fit in one figure: an image is at most " +
                     std::to_string(kMaxPngSide) + " pixels a side (export fewer tokens, or the data as .npy or .csv)");
  }
  cairo_surface_t* img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, cols * s, rows * s);
  unsigned char* data = cairo_surface_status(img) == CAIRO_STATUS_SUCCESS ? cairo_image_surface_get_data(img) : nullptr;
  if (!data) {
    const std::string why = cairo_status_to_string(cairo_surface_status(img));
    cairo_surface_destroy(img);
    const double mib = double(rows) * s * double(cols) * s * 4 / double(1 << 20);
    throw InputError("cannot make the " + std::to_string(cols * s) + " x " + std::to_string(rows * s) + " pixel image of " +
                     cells_text + " (" + std::to_string(int64_t(mib)) + " MiB): " + why +
                     " (export fewer tokens, or the data as .npy or .csv)");
  }
  cairo_surface_flush(img);
  const int stride = cairo_image_surface_get_stride(img);
  for (int py = 0; py < rows * s; ++py) {
    auto* row = reinterpret_cast<uint32_t*>(data + size_t(py) * size_t(stride));
    const Rgb8* src = colours.data() + size_t(py / s) * size_t(cols);
    for (int px = 0; px < cols * s; ++px) {
      const Rgb8 c = src[px / s];
      row[px] = (uint32_t(c.r) << 16) | (uint32_t(c.g) << 8) | uint32_t(c.b);
    }
  }
  cairo_surface_mark_dirty(img);
  cairo_save(cr_);
  cairo_translate(cr_, x, y);
  cairo_scale(cr_, cw / s, ch / s);
  cairo_set_source_surface(cr_, img, 0, 0);
  cairo_pattern_set_filter(cairo_get_source(cr_), CAIRO_FILTER_NEAREST);
  cairo_rectangle(cr_, 0, 0, cols * s, rows * s);
  cairo_fill(cr_);
  cairo_restore(cr_);
  cairo_surface_destroy(img);
}

void Canvas::set_font(const TextStyle& style, int family) {
  cairo_select_font_face(cr_, family == 0 ? family_.c_str() : kFamilies[family], CAIRO_FONT_SLANT_NORMAL,
                         style.bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr_, style.size);
}

int Canvas::family_for(uint32_t cp, const TextStyle& style) {
  return std::max(0, covering_family(cp, style));  // nobody has it: DejaVu Sans draws its missing-glyph box
}

int Canvas::covering_family(uint32_t cp, const TextStyle& style) {
  if (cp < 0x250) return 0;  // Latin: DejaVu Sans has it all
  const uint64_t key = (uint64_t(cp) << 1) | (style.bold ? 1 : 0);
  const auto found = family_cache_.find(key);
  if (found != family_cache_.end()) return found->second;
  std::string one;
  utf8_append(one, cp);
  int chosen = -1;
  for (int f = 0; f < kFamilyCount; ++f) {
    set_font(style, f);
    cairo_glyph_t* glyphs = nullptr;
    int n = 0;
    const cairo_status_t status = cairo_scaled_font_text_to_glyphs(cairo_get_scaled_font(cr_), 0, 0, one.data(),
                                                                   int(one.size()), &glyphs, &n, nullptr, nullptr, nullptr);
    const bool covered = status == CAIRO_STATUS_SUCCESS && n > 0 && glyphs[0].index != 0;
    cairo_glyph_free(glyphs);
    if (covered) {
      chosen = f;
      break;
    }
  }
  family_cache_[key] = chosen;
  return chosen;
}

std::vector<Canvas::FontRun> Canvas::font_runs(const std::string& text, const TextStyle& style) {
  std::vector<FontRun> runs;
  for (size_t pos = 0; pos < text.size();) {
    size_t len = 1;
    const int32_t cp = utf8_decode(text, pos, len);
    const int family = cp < 0 ? 0 : family_for(uint32_t(cp), style);
    const bool join = !runs.empty() && (cp < 0 || joins_previous(uint32_t(cp)) || runs.back().family == family);
    if (!join) runs.push_back({family, {}});
    // Invalid bytes would put the cairo context in an error state for good: U+FFFD instead.
    if (cp < 0) runs.back().text += "\xEF\xBF\xBD";
    else runs.back().text.append(text, pos, len);
    pos += len;
  }
  return runs;
}

double Canvas::text_width(const std::string& text, const TextStyle& style) {
  double w = 0;
  for (const FontRun& run : font_runs(text, style)) {
    set_font(style, run.family);
    cairo_text_extents_t te;
    cairo_text_extents(cr_, run.text.c_str(), &te);
    w += te.x_advance;
  }
  return w;
}

void Canvas::text(double x, double y, const std::string& text, const TextStyle& style, HAlign h, VAlign v, bool vertical) {
  if (text.empty()) return;
  const double w = text_width(text, style);  // (font_runs repairs invalid UTF-8 for drawing)
  set_font(style);
  cairo_font_extents_t fe;
  cairo_font_extents(cr_, &fe);
  double dy = 0;  // baseline offset from the anchor, in the text's own frame
  switch (v) {
    case VAlign::baseline: dy = 0; break;
    case VAlign::middle: dy = 0.36 * style.size; break;  // half DejaVu's cap height
    case VAlign::top: dy = fe.ascent; break;
    case VAlign::bottom: dy = -fe.descent; break;
  }
  const double dx = h == HAlign::left ? 0 : h == HAlign::center ? -0.5 * w : -w;
  cairo_save(cr_);
  cairo_translate(cr_, x, y);
  if (vertical) cairo_rotate(cr_, -M_PI / 2);
  if (record_text_) {
    TextRun run;
    run.x = 0;
    run.y = dy;
    cairo_user_to_device(cr_, &run.x, &run.y);
    double sx = style.size, sy = 0;
    cairo_user_to_device_distance(cr_, &sx, &sy);
    run.size = std::hypot(sx, sy);
    run.vertical = vertical;
    run.align = h;
    run.style = style;
    run.text = utf8_repair(text);
    recorded_.push_back(std::move(run));
  } else {
    set_colour(cr_, style.colour);
    cairo_move_to(cr_, dx, dy);
    for (const FontRun& run : font_runs(text, style)) {  // show_text advances the current point
      set_font(style, run.family);
      cairo_show_text(cr_, run.text.c_str());
    }
  }
  cairo_restore(cr_);
}

MeasureCanvas::MeasureCanvas(const std::string& family)
    : surface_(cairo_image_surface_create(CAIRO_FORMAT_A8, 1, 1)), cr_(cairo_create(surface_)), canvas_(cr_, false, family) {
  // Cairo hands out inert objects in an error state instead of NULL (out of memory): measuring
  // on them gives zeros, so say so instead of laying out a figure on nothing.
  if (cairo_status(cr_) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_status(cr_));
    cairo_destroy(cr_);
    cairo_surface_destroy(surface_);
    throw IoError("cannot measure text for the figure: " + why);
  }
}

double MeasureCanvas::width(const std::string& text, const TextStyle& style) {
  const std::string key = (style.bold ? "b" : "r") + text;
  auto found = widths_.find(key);
  if (found == widths_.end()) {
    TextStyle at100 = style;
    at100.size = 100;
    found = widths_.emplace(key, canvas_.text_width(text, at100)).first;
  }
  return found->second * style.size / 100.0;
}

MeasureCanvas::~MeasureCanvas() {
  cairo_destroy(cr_);
  cairo_surface_destroy(surface_);
}

std::string svg_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : utf8_repair(text)) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20) out += "\xEF\xBF\xBD";
        else out += ch;
    }
  }
  return out;
}

std::string svg_text_layer(const std::vector<TextRun>& runs, const std::string& family) {
  const std::string generic = family.find("Serif") != std::string::npos ? "serif" : "sans-serif";
  std::string out = "<g font-family=\"" + (family.empty() ? std::string("DejaVu Sans, Verdana") : svg_escape(family)) + ", " +
                    generic + "\" xml:space=\"preserve\">\n";
  char buf[256];
  for (const TextRun& r : runs) {
    std::snprintf(buf, sizeof buf, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.2f\"", r.x, r.y, r.size);
    out += buf;
    if (r.style.bold) out += " font-weight=\"bold\"";
    if (r.align != HAlign::left) out += r.align == HAlign::center ? " text-anchor=\"middle\"" : " text-anchor=\"end\"";
    const Rgb8 c = r.style.colour;
    if (c.r || c.g || c.b) {
      std::snprintf(buf, sizeof buf, " fill=\"#%02x%02x%02x\"", c.r, c.g, c.b);
      out += buf;
    }
    if (r.vertical) {
      std::snprintf(buf, sizeof buf, " transform=\"rotate(-90 %.2f %.2f)\"", r.x, r.y);
      out += buf;
    }
    out += '>';
    out += svg_escape(r.text);
    out += "</text>\n";
  }
  out += "</g>\n";
  return out;
}

}  // namespace hs
