#include "app/gui/platform/gl_heatmap_images.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "app/gui/state/embedded.h"
#include "core/model/attention_layer.h"

namespace hs::gui {
namespace {

GLuint make_texture(GLenum internal, int w, int h, GLenum format, GLenum type, const void* data) {
  GLuint t = 0;
  glGenTextures(1, &t);
  glBindTexture(GL_TEXTURE_2D, t);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GLint(internal), w, h, 0, format, type, data);
  return t;
}

}  // namespace

GlHeatmapImages::GlHeatmapImages()
    : program_(embedded_file("heatmap.vert.glsl"), embedded_file("heatmap.frag.glsl")) {
  glGenVertexArrays(1, &vao_);
}

GlHeatmapImages::~GlHeatmapImages() {
  for (auto& [key, e] : entries_) release(e);
  for (auto& [c, t] : colormaps_) glDeleteTextures(1, &t);
  glDeleteVertexArrays(1, &vao_);
}

void GlHeatmapImages::release(Entry& e) {
  glDeleteFramebuffers(1, &e.fbo);
  glDeleteTextures(1, &e.values);
  glDeleteTextures(1, &e.colours);
  e.fbo = e.values = e.colours = 0;
}

GLuint GlHeatmapImages::colormap_texture(Colormap c) {
  auto it = colormaps_.find(c);
  if (it != colormaps_.end()) return it->second;
  // 256x1 RGBA8: entry i of the shared table at texel (i, 0).
  std::vector<unsigned char> rgba(256 * 4);
  const auto& table = colormap_table(c);
  for (size_t i = 0; i < 256; ++i) {
    rgba[i * 4 + 0] = table[i].r, rgba[i * 4 + 1] = table[i].g, rgba[i * 4 + 2] = table[i].b, rgba[i * 4 + 3] = 255;
  }
  const GLuint t = make_texture(GL_RGBA8, 256, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
  colormaps_[c] = t;
  return t;
}

void GlHeatmapImages::render(Entry& e, const Map& map, int out_w, int out_h) {
  const int rows = int(map.rows()), cols = int(map.cols());
  GLint old_fbo = 0, old_viewport[4] = {}, old_program = 0, old_vao = 0, old_active = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fbo);
  if (rows != e.rows || cols != e.cols || out_w != e.out_w || out_h != e.out_h || !e.fbo) {
    release(e);
    e.rows = rows, e.cols = cols, e.out_w = out_w, e.out_h = out_h;
    e.values = make_texture(GL_R32F, cols, rows, GL_RED, GL_FLOAT, nullptr);
    e.colours = make_texture(GL_RGBA8, out_w, out_h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glGenFramebuffers(1, &e.fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, e.fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, e.colours, 0);
  }
  // t: [rows, cols] row-major, row 0 = first query = texel row 0 = top of the ImGui image.
  Map t = scale_to_unit(map, e.range);
  // A head's own map: cells its layer's mask hides are kMaskedT (the shader's masked colour).
  if (run_ && !run_->compact() && rows == cols && rows == run_->n_tokens()) {
    for (int l = 0; l < run_->n_layers(); ++l)
      for (const Map& m : run_->attention[size_t(l)])
        if (m.data() == map.data()) {
          const AttentionConfig cfg = layer_attention_config(run_->info, l);
          if (cfg.causal || cfg.window >= 0)
            for (int i = 0; i < rows; ++i)
              for (int j = 0; j < cols; ++j)
                if (!key_visible(cfg, i, j)) t(i, j) = kMaskedT;
        }
  }
  glBindTexture(GL_TEXTURE_2D, e.values);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RED, GL_FLOAT, t.data());

    glGetIntegerv(GL_VIEWPORT, old_viewport);
  glGetIntegerv(GL_CURRENT_PROGRAM, &old_program);
  glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &old_vao);
  glGetIntegerv(GL_ACTIVE_TEXTURE, &old_active);
  const GLboolean blend = glIsEnabled(GL_BLEND), scissor = glIsEnabled(GL_SCISSOR_TEST);

  glBindFramebuffer(GL_FRAMEBUFFER, e.fbo);
  glViewport(0, 0, out_w, out_h);
  glDisable(GL_BLEND);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_.id());
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, e.values);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, colormap_texture(e.colormap));
  glUniform1i(program_.uniform("values"), 0);
  glUniform1i(program_.uniform("colormap"), 1);
  glUniform2i(program_.uniform("cells"), cols, rows);
  glUniform2i(program_.uniform("pixels"), out_w, out_h);
  const Rgb8 masked = masked_colour(e.colormap);
  glUniform3f(program_.uniform("masked"), masked.r / 255.0f, masked.g / 255.0f, masked.b / 255.0f);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);

  glBindVertexArray(GLuint(old_vao));
  glUseProgram(GLuint(old_program));
  glActiveTexture(GLenum(old_active));
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(old_fbo));
  glViewport(old_viewport[0], old_viewport[1], old_viewport[2], old_viewport[3]);
  if (blend) glEnable(GL_BLEND);
  if (scissor) glEnable(GL_SCISSOR_TEST);
}

ImTextureID GlHeatmapImages::image(const std::string& key, uint64_t version, const Map& map, const ScaleRange& range,
                                   Colormap colormap, ImVec2 pixels) {
  if (map.size() == 0) return ImTextureID(nullptr);
  // One texel per cell, or per pixel where cells outnumber pixels (each the largest it covers).
  const int out_w = std::clamp(int(std::lround(pixels.x)), 1, int(map.cols()));
  const int out_h = std::clamp(int(std::lround(pixels.y)), 1, int(map.rows()));
  Entry& e = entries_[key];
  e.last_used = frame_;
  const bool stale = !e.fbo || e.version != version || e.range != range || e.colormap != colormap ||
                     e.rows != map.rows() || e.cols != map.cols() || e.out_w != out_w || e.out_h != out_h;
  if (stale) {
    e.version = version, e.range = range, e.colormap = colormap;
    render(e, map, out_w, out_h);
  }
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.colours));
}

ImTextureID GlHeatmapImages::rgba_image(const std::string& key, uint64_t version, const RgbaPixels& pixels) {
  if (pixels.width <= 0 || pixels.height <= 0) return ImTextureID(nullptr);
  Entry& e = entries_[key];
  e.last_used = frame_;
  if (!e.colours || e.version != version || e.out_w != pixels.width || e.out_h != pixels.height) {
    release(e);
    e.version = version, e.out_w = pixels.width, e.out_h = pixels.height;
    e.colours = make_texture(GL_RGBA8, pixels.width, pixels.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.rgba.data());
  }
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.colours));
}

void GlHeatmapImages::end_frame(int max_idle) {
  ++frame_;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (frame_ - it->second.last_used > max_idle) {
      release(it->second);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace hs::gui
