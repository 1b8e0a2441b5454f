#include "app/gui/platform/gl_heatmap_images.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "app/gui/state/embedded.h"
#include "core/render/peak_reduce.h"

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

int draw_calls(const ImDrawData* data) {
  int n = 0;
  if (data)
    for (int i = 0; i < data->CmdListsCount; ++i) n += data->CmdLists[i]->CmdBuffer.Size;
  return n;
}

GlHeatmapImages::GlHeatmapImages()
    : program_(embedded_file("heatmap.vert.glsl"), embedded_file("heatmap.frag.glsl")) {
  glGenVertexArrays(1, &vao_);
  GLint max_side = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
  atlas_on_ = max_side >= kAtlasSide;  // else every map has a texture of its own
  if (atlas_on_) {
    GLint old_fbo = 0;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fbo);
    atlas_ = make_texture(GL_RGBA8, kAtlasSide, kAtlasSide, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glGenFramebuffers(1, &atlas_fbo_);
    glBindFramebuffer(GL_FRAMEBUFFER, atlas_fbo_);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, atlas_, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(old_fbo));
  }
}

GlHeatmapImages::~GlHeatmapImages() {
  for (auto& [key, e] : entries_) release(e);
  for (auto& [c, t] : colormaps_) glDeleteTextures(1, &t);
  for (GLuint& v : values_) glDeleteTextures(1, &v);
  glDeleteFramebuffers(1, &atlas_fbo_);
  glDeleteTextures(1, &atlas_);
  glDeleteVertexArrays(1, &vao_);
}

void GlHeatmapImages::release(Entry& e) {
  glDeleteFramebuffers(1, &e.fbo);
  glDeleteTextures(1, &e.colours);
  e.fbo = e.colours = 0;
  if (e.slot.valid() && e.atlas_epoch == atlas_epoch_) atlas_live_ -= int64_t(e.slot.w) * e.slot.h;
  e.slot = Slot{};
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

// Shelf packing with a gap of one texel around each slot (NEAREST sampling never reaches a
// neighbour anyway; the gap keeps it so under any rounding of the UVs).
GlHeatmapImages::Slot GlHeatmapImages::allocate(int w, int h) {
  const int gw = w + 1, gh = h + 1;
  for (Shelf& s : shelves_)
    if (gh <= s.h && s.h <= gh + gh / 2 + 2 && s.x + gw <= kAtlasSide) {  // fits, without wasting most of the shelf
      Slot slot{s.x, s.y, w, h};
      s.x += gw;
      return slot;
    }
  const int y = shelves_.empty() ? 0 : shelves_.back().y + shelves_.back().h;
  if (y + gh > kAtlasSide) return Slot{};
  shelves_.push_back(Shelf{y, gh, gw});
  return Slot{0, y, w, h};
}

// t = the map on its colour scale, with the cells its mask hides at kMaskedT (the mask travels
// with the map: core/render/shown_map.h), reduced to [out_h, out_w] by block_max when drawn on
// fewer pixels than it has cells, into the scratch values texture. The reduction is the CPU
// renderer's own (core/render/peak_reduce.h), so the screen keeps the peaks a figure keeps; done
// here, the upload and the shader's work shrink to the drawn pixels.
void GlHeatmapImages::upload_values(const ShownMap& map, const ScaleRange& range, int out_w, int out_h) {
  const int rows = int(map.cells->rows()), cols = int(map.cells->cols());
  // t: [rows, cols] row-major, row 0 = first query = texel row 0 = top of the ImGui image.
  Map& t = scaled_;
  scale_shown(map, range, t);
  const Map* upload = &t;
  if (out_w < cols || out_h < rows) {
    reduced_ = block_max(t, out_h, out_w);
    upload = &reduced_;
  }
  const int up_rows = int(upload->rows()), up_cols = int(upload->cols());
  // A ring of scratch textures: the map coloured just before may still be drawing from the last
  // one (writing a texture a queued draw reads makes the driver wait for that draw).
  GLuint& values = values_[next_values_];
  int& values_w = values_w_[next_values_];
  int& values_h = values_h_[next_values_];
  values_now_ = values;
  if (!values || up_cols > values_w || up_rows > values_h) {
    // Grown in steps of 64 texels: typing adds a token at a time, and a new texture's storage is
    // allocated and cleared by the driver (page faults and a memset on llvmpipe).
    const auto step = [](int n) { return (n + 63) / 64 * 64; };
    glDeleteTextures(1, &values);
    values_w = std::max(step(up_cols), values_w), values_h = std::max(step(up_rows), values_h);
    values = make_texture(GL_R32F, values_w, values_h, GL_RED, GL_FLOAT, nullptr);
  }
  values_now_ = values;
  next_values_ = (next_values_ + 1) % kValueTextures;
  glBindTexture(GL_TEXTURE_2D, values);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, up_cols, up_rows, GL_RED, GL_FLOAT, upload->data());
}

// Colours the uploaded values into `target` of the framebuffer `fbo`. The GL state ImGui draws
// with is saved at the first map of a frame and put back by end_colouring() (binding framebuffers
// back and forth for every map would make the driver flush its work each time).
void GlHeatmapImages::colour(GLuint fbo, const Slot& target, Colormap colormap) {
  ++renders_;
  if (!colouring_) {
    colouring_ = true;
    glGetIntegerv(GL_FRAMEBUFFER_BINDING, &saved_.fbo);
    glGetIntegerv(GL_VIEWPORT, saved_.viewport);
    glGetIntegerv(GL_SCISSOR_BOX, saved_.scissor);
    glGetIntegerv(GL_CURRENT_PROGRAM, &saved_.program);
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &saved_.vao);
    glGetIntegerv(GL_ACTIVE_TEXTURE, &saved_.active);
    saved_.blend = glIsEnabled(GL_BLEND), saved_.scissor_test = glIsEnabled(GL_SCISSOR_TEST);
    glDisable(GL_BLEND);
    glEnable(GL_SCISSOR_TEST);
    glUseProgram(program_.id());
    glUniform1i(program_.uniform("values"), 0);
    glUniform1i(program_.uniform("colormap"), 1);
    glBindVertexArray(vao_);
    bound_fbo_ = GLuint(-1);
  }
  if (bound_fbo_ != fbo) glBindFramebuffer(GL_FRAMEBUFFER, fbo), bound_fbo_ = fbo;
  glViewport(target.x, target.y, target.w, target.h);
  glScissor(target.x, target.y, target.w, target.h);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, values_now_);
  glActiveTexture(GL_TEXTURE1);
  glBindTexture(GL_TEXTURE_2D, colormap_texture(colormap));
  glUniform2i(program_.uniform("origin"), target.x, target.y);
  const Rgb8 masked = masked_colour(colormap);
  glUniform3f(program_.uniform("masked"), masked.r / 255.0f, masked.g / 255.0f, masked.b / 255.0f);
  glDrawArrays(GL_TRIANGLES, 0, 3);
}

void GlHeatmapImages::end_colouring() {
  if (!colouring_) return;
  colouring_ = false;
  glBindVertexArray(GLuint(saved_.vao));
  glUseProgram(GLuint(saved_.program));
  glActiveTexture(GLenum(saved_.active));
  glBindFramebuffer(GL_FRAMEBUFFER, GLuint(saved_.fbo));
  glViewport(saved_.viewport[0], saved_.viewport[1], saved_.viewport[2], saved_.viewport[3]);
  glScissor(saved_.scissor[0], saved_.scissor[1], saved_.scissor[2], saved_.scissor[3]);
  if (saved_.blend) glEnable(GL_BLEND);
  if (!saved_.scissor_test) glDisable(GL_SCISSOR_TEST);
}

GlHeatmapImages::Entry& GlHeatmapImages::lookup(const std::string& key, const MapVersion& version, const ShownMap& map,
                                                const ScaleRange& range, Colormap colormap, ImVec2 pixels, bool shared) {
  // One texel per cell, or per pixel where cells outnumber pixels (each the largest it covers).
  const int rows = int(map.cells->rows()), cols = int(map.cells->cols());
  const int out_w = std::clamp(int(std::lround(pixels.x)), 1, cols);
  const int out_h = std::clamp(int(std::lround(pixels.y)), 1, rows);
  Entry& e = entries_[key];
  e.last_used = frame_;
  const bool in_atlas = e.slot.valid() && e.atlas_epoch == atlas_epoch_;
  const bool want_atlas = shared && atlas_on_ && out_w <= kAtlasMaxSide && out_h <= kAtlasMaxSide;
  const bool placed = want_atlas ? in_atlas || e.fbo : e.fbo != 0;  // the atlas full: a texture of its own
  const bool stale = !placed || e.version != version || e.mask != map.mask || e.range != range || e.colormap != colormap || e.rows != rows ||
                     e.cols != cols || e.out_w != out_w || e.out_h != out_h;
  if (!stale) return e;
  // Over this frame's colouring budget: a map whose older picture is still in place shows it until
  // a later frame (its new data is coloured then, in drawing order).
  const bool has_old = e.out_w > 0 && (in_atlas || e.fbo);
  // (Past the ring of scratch textures, an upload waits for the GPU to finish the colouring queued
  // so far. Maps go up at their drawn size, so the wait is short; it counts against the budget
  // like the rest.)
  if (has_old && upload_budget_ms_ > 0 && frame_upload_ms_ >= upload_budget_ms_) {
    ++pending_;
    return e;
  }
  const auto start = std::chrono::steady_clock::now();
  e.version = version, e.mask = map.mask, e.range = range, e.colormap = colormap;
  e.rows = rows, e.cols = cols;
  // New data at the same size is coloured in place; a new size gets a new place.
  const bool keep_slot = want_atlas && in_atlas && out_w == e.out_w && out_h == e.out_h;
  const bool keep_own = !want_atlas && e.fbo && out_w == e.out_w && out_h == e.out_h;
  if (!keep_slot && !keep_own) {
    release(e);
    e.out_w = out_w, e.out_h = out_h;
    if (want_atlas) {
      e.slot = allocate(out_w, out_h);
      if (e.slot.valid()) e.atlas_epoch = atlas_epoch_, atlas_live_ += int64_t(out_w) * out_h;
      else atlas_full_ = true;
    }
    if (!e.slot.valid()) {
      e.colours = make_texture(GL_RGBA8, out_w, out_h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
      GLint old_fbo = 0;
      glGetIntegerv(GL_FRAMEBUFFER_BINDING, &old_fbo);
      glGenFramebuffers(1, &e.fbo);
      glBindFramebuffer(GL_FRAMEBUFFER, e.fbo);
      glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, e.colours, 0);
      glBindFramebuffer(GL_FRAMEBUFFER, GLuint(old_fbo));
    }
  }
  upload_values(map, range, out_w, out_h);  // [out_h, out_w] values: one cell per pixel
  if (e.slot.valid()) colour(atlas_fbo_, e.slot, colormap);
  else colour(e.fbo, Slot{0, 0, out_w, out_h}, colormap);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  upload_ms_ += ms, frame_upload_ms_ += ms;
  return e;
}

ImTextureID GlHeatmapImages::image(const std::string& key, const MapVersion& version, const ShownMap& map,
                                   const ScaleRange& range, Colormap colormap, ImVec2 pixels) {
  if (!map.cells || map.cells->size() == 0) return ImTextureID(nullptr);
  const Entry& e = lookup(key, version, map, range, colormap, pixels, false);
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.colours));
}

ImTextureID GlHeatmapImages::rgba_image(const std::string& key, uint64_t version, const RgbaPixels& pixels) {
  if (pixels.width <= 0 || pixels.height <= 0) return ImTextureID(nullptr);
  Entry& e = entries_[key];
  e.last_used = frame_;
  if (!e.colours || e.picture != version || e.out_w != pixels.width || e.out_h != pixels.height) {
    release(e);
    e.picture = version, e.out_w = pixels.width, e.out_h = pixels.height;
    e.colours = make_texture(GL_RGBA8, pixels.width, pixels.height, GL_RGBA, GL_UNSIGNED_BYTE, pixels.rgba.data());
  }
  return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.colours));
}

HeatmapTexture GlHeatmapImages::region(const std::string& key, const MapVersion& version, const ShownMap& map,
                                       const ScaleRange& range, Colormap colormap, ImVec2 pixels) {
  if (!map.cells || map.cells->size() == 0) return {};
  const Entry& e = lookup(key, version, map, range, colormap, pixels, true);
  if (!e.slot.valid()) return {reinterpret_cast<ImTextureID>(static_cast<intptr_t>(e.colours))};
  const float s = 1.0f / float(kAtlasSide);
  // Texel row y of the atlas is row y of the map's image: v grows downwards as ImGui draws it.
  return {reinterpret_cast<ImTextureID>(static_cast<intptr_t>(atlas_)), ImVec2(float(e.slot.x) * s, float(e.slot.y) * s),
          ImVec2(float(e.slot.x + e.out_w) * s, float(e.slot.y + e.out_h) * s)};
}

void GlHeatmapImages::end_frame(int max_idle) {
  ++frame_;
  frame_upload_ms_ = 0;
  pending_ = 0;
  for (auto it = entries_.begin(); it != entries_.end();) {
    if (frame_ - it->second.last_used > max_idle) {
      release(it->second);
      it = entries_.erase(it);
    } else {
      ++it;
    }
  }
  // The atlas ran out of room while most of it holds freed or resized maps: pack it again from
  // scratch (the maps in it are coloured again when next drawn). Between frames, so no slot
  // drawn this frame is overwritten before ImGui has drawn it.
  if (atlas_full_ && atlas_live_ * 2 < int64_t(kAtlasSide) * kAtlasSide) {
    for (auto& [key, e] : entries_)
      if (e.slot.valid()) release(e);
    shelves_.clear();
    ++atlas_epoch_;
    atlas_live_ = 0;
  }
  atlas_full_ = false;
}

}  // namespace hs::gui
