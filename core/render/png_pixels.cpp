#include "core/render/png_pixels.h"

#include <cairo.h>

#include <cstring>

#include "core/util/errors.h"

namespace hs {
namespace {

struct PngStreamReader {
  const std::string* bytes;
  size_t at = 0;
};

cairo_status_t read_bytes(void* closure, unsigned char* data, unsigned int length) {
  PngStreamReader& r = *static_cast<PngStreamReader*>(closure);
  if (r.bytes->size() - r.at < length) return CAIRO_STATUS_READ_ERROR;
  std::memcpy(data, r.bytes->data() + r.at, length);
  r.at += length;
  return CAIRO_STATUS_SUCCESS;
}

}  // namespace

RgbaPixels decode_png(const std::string& png) {
  PngStreamReader reader{&png};
  cairo_surface_t* s = cairo_image_surface_create_from_png_stream(read_bytes, &reader);
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    const std::string why = cairo_status_to_string(cairo_surface_status(s));
    cairo_surface_destroy(s);
    throw FormatError("cannot read the PNG (" + std::to_string(png.size()) + " bytes): " + why);
  }
  cairo_surface_flush(s);
  RgbaPixels out;
  out.width = cairo_image_surface_get_width(s);
  out.height = cairo_image_surface_get_height(s);
  const int stride = cairo_image_surface_get_stride(s);
  const cairo_format_t format = cairo_image_surface_get_format(s);
  const unsigned char* data = cairo_image_surface_get_data(s);
  out.rgba.resize(size_t(out.width) * size_t(out.height) * 4);
  for (int y = 0; y < out.height; ++y) {
    const uint32_t* row = reinterpret_cast<const uint32_t*>(data + size_t(y) * size_t(stride));
    for (int x = 0; x < out.width; ++x) {
      // cairo's ARGB32 / RGB24: native-endian 0xAARRGGBB, colour premultiplied by alpha.
      const uint32_t p = row[x];
      const uint32_t a = format == CAIRO_FORMAT_ARGB32 ? (p >> 24) & 0xff : 0xff;
      uint32_t c[3] = {(p >> 16) & 0xff, (p >> 8) & 0xff, p & 0xff};
      uint8_t* o = &out.rgba[(size_t(y) * size_t(out.width) + size_t(x)) * 4];
      for (int k = 0; k < 3; ++k) o[k] = uint8_t(a == 0 ? 0 : a == 255 ? c[k] : (c[k] * 255 + a / 2) / a);
      o[3] = uint8_t(a);
    }
  }
  cairo_surface_destroy(s);
  return out;
}

}  // namespace hs
