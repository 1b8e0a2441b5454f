#pragma once
// HeatmapImages on OpenGL: each map is uploaded as an R32F texture of t values (NEAREST), one per
// cell (or, when the map is drawn on fewer pixels than it has cells, one per pixel holding the
// largest t it covers, reduced on the CPU), coloured by the colormap shader into RGBA8 texels,
// which ImGui then draws (NEAREST, so cells stay crisp). region() puts maps of up to
// kAtlasMaxSide texels a side into one shared atlas texture, so ImGui draws a screen of them (the
// 12 x 12 overview) in a few draw calls instead of one per map; image() and larger maps get a texture of their own. Work
// happens only when a map's data version, scale range, colormap or drawn size change; maps unused
// for a while are freed. A GL without textures that large gives every map its own texture.
#include <glad/gl.h>

#include <map>
#include <string>
#include <vector>

#include "app/gui/platform/gl_program.h"
#include "app/gui/widgets/ui_context.h"

namespace hs::gui {

// ImGui's draw commands in `data` (each one GL draw call).
int draw_calls(const ImDrawData* data);

class GlHeatmapImages final : public HeatmapImages {
 public:
  GlHeatmapImages();
  ~GlHeatmapImages() override;
  GlHeatmapImages(const GlHeatmapImages&) = delete;
  GlHeatmapImages& operator=(const GlHeatmapImages&) = delete;

  ImTextureID image(const std::string& key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                    Colormap colormap, ImVec2 pixels) override;
  ImTextureID rgba_image(const std::string& key, uint64_t version, const RgbaPixels& pixels) override;
  HeatmapTexture region(const std::string& key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                        Colormap colormap, ImVec2 pixels) override;
  // Call after the frame's panels drew their maps and before ImGui's draw lists are rendered:
  // puts back the GL state the maps were coloured with (colour()).
  void end_colouring();
  // Call once per frame: frees textures not used for `max_idle` frames.
  void end_frame(int max_idle = 120);
  // Maps coloured (rendered) so far: tests and the benchmark check that a still frame renders none.
  int64_t renders() const { return renders_; }
  // Time spent colouring maps so far (ms, CPU side: value upload and the colouring draw call).
  double upload_ms() const { return upload_ms_; }
  // Spreads new maps over frames: once a frame has spent `ms` colouring maps, a map that already
  // shows older data keeps showing it until a later frame (a keystroke's maps would otherwise make
  // one long frame). A map with nothing to show yet is always coloured. <= 0: no limit (screenshots,
  // which must show every map's newest data).
  void set_upload_budget_ms(double ms) { upload_budget_ms_ = ms; }
  // Maps drawn this frame that still show older data.
  int pending() const { return pending_; }

  static constexpr int kAtlasSide = 2048;    // texels
  static constexpr int kAtlasMaxSide = 512;  // larger maps get their own texture

 private:
  // A place in the atlas: the texels [x, x + w) x [y, y + h), reusable by anything that fits.
  struct Slot {
    int x = -1, y = -1, w = 0, h = 0;
    bool valid() const { return x >= 0; }
  };
  struct Entry {
    GLuint colours = 0, fbo = 0;  // a texture of its own (not in the atlas)
    Slot slot;                    // or a region of the atlas
    int rows = 0, cols = 0;       // the map's cells
    int out_w = 0, out_h = 0;     // the coloured image: min(cells, drawn pixels) on each axis
    MapVersion version;
    MapMask mask;
    uint64_t picture = 0;         // rgba_image's version
    ScaleRange range;
    Colormap colormap = Colormap::viridis;
    int64_t last_used = 0;
    uint64_t atlas_epoch = 0;     // the atlas packing the slot belongs to
  };
  Entry& lookup(const std::string& key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                Colormap colormap, ImVec2 pixels, bool shared);
  GLuint colormap_texture(Colormap c);
  void upload_values(const ShownMap& map, const ScaleRange& range, int out_w, int out_h);
  void colour(GLuint fbo, const Slot& target, Colormap colormap);
  Slot allocate(int w, int h);
  void release(Entry& e);

  GlProgram program_;
  GLuint vao_ = 0;
  static constexpr int kValueTextures = 32;
  GLuint values_[kValueTextures] = {};       // scratch R32F textures of the maps being coloured, used in turn
  int values_w_[kValueTextures] = {}, values_h_[kValueTextures] = {};
  int next_values_ = 0;
  GLuint values_now_ = 0;  // the one holding the map being coloured
  Map scaled_;             // scratch: the map on its colour scale
  Map reduced_;            // scratch: ... reduced to the drawn pixels
  // The GL state saved at the frame's first colour() and put back by end_colouring().
  struct SavedState {
    GLint fbo = 0, viewport[4] = {}, scissor[4] = {}, program = 0, vao = 0, active = 0;
    GLboolean blend = GL_FALSE, scissor_test = GL_FALSE;
  };
  SavedState saved_;
  bool colouring_ = false;
  GLuint bound_fbo_ = 0;
  GLuint atlas_ = 0, atlas_fbo_ = 0;
  bool atlas_on_ = true;
  // Shelf packing: rows of slots; a shelf is as tall as its first slot.
  struct Shelf {
    int y = 0, h = 0, x = 0;
  };
  std::vector<Shelf> shelves_;
  uint64_t atlas_epoch_ = 1;
  int64_t atlas_live_ = 0;      // texels of slots in use
  bool atlas_full_ = false;     // an allocation failed this frame
  std::map<Colormap, GLuint> colormaps_;
  std::map<std::string, Entry> entries_;
  int64_t frame_ = 0, renders_ = 0;
  double upload_ms_ = 0, upload_budget_ms_ = 0;
  double frame_upload_ms_ = 0;  // colouring time this frame
  int pending_ = 0;             // maps drawn with older data this frame
};

}  // namespace hs::gui
