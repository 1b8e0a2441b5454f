#pragma once
// HeatmapImages on OpenGL: each map is uploaded as an R32F texture of t values (NEAREST),
// coloured by the colormap shader into an RGBA8 texture with one texel per cell, which ImGui
// then draws scaled up (NEAREST, so cells stay crisp). Work happens only when a map's data
// version, scale range or colormap change; maps unused for a while are freed.
#include <glad/gl.h>

#include <map>
#include <string>

#include "app/gui/platform/gl_program.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

class GlHeatmapImages final : public HeatmapImages {
 public:
  GlHeatmapImages();
  ~GlHeatmapImages() override;
  GlHeatmapImages(const GlHeatmapImages&) = delete;
  GlHeatmapImages& operator=(const GlHeatmapImages&) = delete;

  ImTextureID image(const std::string& key, uint64_t version, const Map& map, const ScaleRange& range,
                    Colormap colormap) override;
  // Call once per frame: frees textures not used for `max_idle` frames.
  void end_frame(int max_idle = 120);

 private:
  struct Entry {
    GLuint values = 0, colours = 0, fbo = 0;
    int rows = 0, cols = 0;
    uint64_t version = 0;
    ScaleRange range;
    Colormap colormap = Colormap::viridis;
    int64_t last_used = 0;
  };
  GLuint colormap_texture(Colormap c);
  void render(Entry& e, const Map& map);
  static void release(Entry& e);

  GlProgram program_;
  GLuint vao_ = 0;
  std::map<Colormap, GLuint> colormaps_;
  std::map<std::string, Entry> entries_;
  int64_t frame_ = 0;
};

}  // namespace hs::gui
