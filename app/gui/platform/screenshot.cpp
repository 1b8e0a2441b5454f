#include "app/gui/platform/screenshot.h"

#include <glad/gl.h>
#include <stb_image_write.h>

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/util/atomic_file.h"
#include "core/util/errors.h"

namespace hs::gui {

bool write_screenshot(const std::string& path, int width, int height, const FrameReport& report, std::string& error) {
  std::vector<unsigned char> pixels(size_t(width) * size_t(height) * 4);
  glFinish();
  while (glGetError() != GL_NO_ERROR) {
  }
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
  if (const GLenum e = glGetError(); e != GL_NO_ERROR) {
    error = "reading the window's pixels failed (GL error " + std::to_string(e) + ")";
    return false;
  }
  // GL's rows start at the bottom; PNG rows start at the top.
  std::vector<unsigned char> flipped(pixels.size());
  const size_t stride = size_t(width) * 4;
  for (int y = 0; y < height; ++y)
    std::copy_n(pixels.begin() + std::ptrdiff_t(size_t(height - 1 - y) * stride), stride,
                flipped.begin() + std::ptrdiff_t(size_t(y) * stride));
  for (size_t i = 3; i < flipped.size(); i += 4) flipped[i] = 255;
  // Encoded in memory, then written atomically: a full disk, a read-only destination or a
  // symlink to /dev/full is an error naming the file, never a silent success or half a PNG.
  stbi_write_png_compression_level = 9;
  std::string png;
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data), size_t(size));
  };
  if (!stbi_write_png_to_func(append, &png, width, height, 4, flipped.data(), int(stride)) || png.empty()) {
    error = "cannot write " + path + ": encoding the PNG failed";
    return false;
  }
  nlohmann::json j;
  j["width"] = width;
  j["height"] = height;
  j["heatmaps"] = nlohmann::json::array();
  for (const DrawnHeatmap& h : report.heatmaps) {
    j["heatmaps"].push_back({{"key", h.key},
                             {"layer", h.layer},
                             {"head", h.head},
                             {"rows", h.rows},
                             {"cols", h.cols},
                             {"x0", h.min.x},
                             {"y0", h.min.y},
                             {"x1", h.max.x},
                             {"y1", h.max.y},
                             {"texels_x", h.texels_x},
                             {"texels_y", h.texels_y},
                             {"scale", scale_mode_name(h.range.mode)},
                             {"skip_first_column", h.range.skip_first_column},
                             {"lo", h.range.lo},
                             {"hi", h.range.hi},
                             {"skip_first_column", h.range.skip_first_column},
                             {"colormap", colormap_name(h.colormap)},
                             {"label_px", h.label_px},
                             {"row_labels", h.row_labels},
                             {"col_labels", h.col_labels},
                             {"hidden", h.hidden},
                             {"mask", {{"causal", h.mask.causal},
                                       {"window", h.mask.window},
                                       {"row0", h.mask.row0},
                                       {"col0", h.mask.col0},
                                       {"factor", h.mask.factor},
                                       {"tokens", h.tokens}}},
                             {"relative_bar", h.relative_bar}});
  }
  // Every colour bar drawn: each map's range has one (relative_bar: a 0..1 share of its own largest).
  j["bars"] = nlohmann::json::array();
  for (const DrawnBar& b : report.bars)
    j["bars"].push_back({{"scale", scale_mode_name(b.range.mode)},
                         {"lo", b.range.lo},
                         {"hi", b.range.hi},
                         {"colormap", colormap_name(b.colormap)},
                         {"x0", b.min.x},
                         {"y0", b.min.y},
                         {"x1", b.max.x},
                         {"y1", b.max.y}});
  j["panels"] = nlohmann::json::array();
  for (const DrawnPanel& p : report.panels)
    j["panels"].push_back({{"name", p.name}, {"text", p.text}, {"x0", p.min.x}, {"y0", p.min.y}, {"x1", p.max.x}, {"y1", p.max.y}});
  // Every text drawn, its glyphs' box, clip rectangle and pixel size (layout checks).
  j["texts"] = nlohmann::json::array();
  for (const DrawnText& t : report.texts)
    j["texts"].push_back({{"text", t.text}, {"window", t.window}, {"px", t.px}, {"x0", t.min.x}, {"y0", t.min.y},
                          {"x1", t.max.x}, {"y1", t.max.y}, {"clip", {t.clip_min.x, t.clip_min.y, t.clip_max.x, t.clip_max.y}},
                          {"clipped", t.clipped}});
  j["scrolling"] = report.scrolling;
  j["frame"] = {{"heatmap_renders", report.heatmap_renders}, {"draw_calls", report.draw_calls}};
  j["fonts"] = {{"extra_glyphs", report.fonts.extra_glyphs},
                {"missing_glyphs", report.fonts.missing_glyphs},
                {"atlas_width", report.fonts.atlas_width},
                {"atlas_height", report.fonts.atlas_height}};
  try {
    write_file_atomic(path, png);
    write_file_atomic(path + ".json", j.dump(1) + "\n");
  } catch (const Error& e) {
    error = e.what();  // "cannot write full.png: No space left on device"
    return false;
  } catch (const std::bad_alloc&) {
    error = "cannot write " + path + ": out of memory";
    return false;
  }
  return true;
}

}  // namespace hs::gui
