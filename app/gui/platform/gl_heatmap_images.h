#pragma once
// HeatmapImages on OpenGL: each map is uploaded as an R32F texture of t values (NEAREST),
// coloured by the colormap shader into an RGBA8 texture with one texel per cell (or, when the map
// is drawn on fewer pixels than it has cells, one texel per pixel holding the largest t it covers),
// which ImGui then draws (NEAREST, so cells stay crisp). Work happens only when a map's data
// version, scale range, colormap or drawn size change; maps unused for a while are freed.
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
                    Colormap colormap, ImVec2 pixels) override;
  ImTextureID rgba_image(const std::string& key, uint64_t version, const RgbaPixels& pixels) override;
  // Call once per frame: frees textures not used for `max_idle` frames.
  void end_frame(int max_idle = 120);
  // The run on screen: a map that is one of its heads' maps gets that layer's mask (causal,
  // window), so masked cells show the masked colour (core/render/colormap.h) as figures do.
  void set_run(const AttentionRun* run) { run_ = run; }

 private:
  struct Entry {
    GLuint values = 0, colours = 0, fbo = 0;
    int rows = 0, cols = 0;      // the map's cells (the values texture)
    int out_w = 0, out_h = 0;    // the colour texture: min(cells, drawn pixels) on each axis
    uint64_t version = 0;
    ScaleRange range;
    Colormap colormap = Colormap::viridis;
    int64_t last_used = 0;
  };
  GLuint colormap_texture(Colormap c);
  void render(Entry& e, const Map& map, int out_w, int out_h);
  static void release(Entry& e);

  GlProgram program_;
  GLuint vao_ = 0;
  std::map<Colormap, GLuint> colormaps_;
  std::map<std::string, Entry> entries_;
  int64_t frame_ = 0;
  const AttentionRun* run_ = nullptr;
};

}  // namespace hs::gui
