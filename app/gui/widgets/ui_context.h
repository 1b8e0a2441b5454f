#pragma once
// What panels get besides AppState: the current Derived (read only), the texture cache for
// heatmaps, fonts, status numbers, and a report of where heatmaps were drawn this frame.
#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "app/gui/state/ablation_status.h"
#include "app/gui/state/exact_head_status.h"
#include "app/gui/state/fit_status.h"
#include "app/gui/state/derived.h"
#include "app/gui/state/patching_status.h"
#include "app/gui/state/status.h"
#include "app/gui/widgets/drawn_text.h"
#include "core/render/colour_scale.h"
#include "core/render/png_pixels.h"
#include "core/render/shown_map.h"
#include "core/session/lesson_file.h"

namespace hs::gui {

// Turns a map into a texture ImGui can draw at `pixels` (framebuffer pixels, width x height):
// one texel per cell, or, where the map has more cells than pixels, one texel per pixel holding
// the largest value it covers (core/render/peak_reduce.h), so no peak disappears. The GL version
// colours it on the GPU and caches it under `key` until version, range, colormap or size change;
// the headless one returns a dummy id.
// What a map's cells are, field by field: equal versions, the same cells (the cache keeps a
// texture until its version changes). Typed rather than packed into one number, so no two maps
// share a version by arithmetic (with heads packed in 6 bits, layer 0 head 64 would be layer 1 head 0).
struct MapVersion {
  uint64_t source = 0;        // the result the cells come from: Derived::generation, a job's serial
  int layer = -1, head = -1;  // the map's layer and head (-1: not one)
  int other = -1;             // what else picks the cells: a pair's second head, a measure, an order
  int row0 = 0, col0 = 0, rows = 0, cols = 0, factor = 1;  // a region of the map (rows 0: the whole map)
  bool exact = true;          // a region's exact cells (false: the coarse ones meanwhile)

  auto tie() const { return std::tie(source, layer, head, other, row0, col0, rows, cols, factor, exact); }
  bool operator==(const MapVersion& o) const { return tie() == o.tie(); }
  bool operator!=(const MapVersion& o) const { return !(*this == o); }
};

// A texture and the part of it [uv0, uv1] that holds one map.
struct HeatmapTexture {
  ImTextureID id = ImTextureID(nullptr);
  ImVec2 uv0{0, 0}, uv1{1, 1};
};

class HeatmapImages {
 public:
  virtual ~HeatmapImages() = default;
  // A texture of its own holding the whole map (uv 0..1); the cells the map's mask hides in the
  // colormap's masked colour.
  virtual ImTextureID image(const std::string& key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                            Colormap colormap, ImVec2 pixels) = 0;
  // A ready picture (the Export dialog's preview: the export's own PNG, decoded), uploaded as it
  // is and cached under `key` until `version` changes. Null where there is no GPU (headless).
  virtual ImTextureID rgba_image(const std::string& key, uint64_t version, const RgbaPixels& pixels) {
    (void)key, (void)version, (void)pixels;
    return ImTextureID(nullptr);
  }
  // The same image, possibly a region of a texture shared with other maps (the GL version packs
  // small maps into one atlas so that ImGui draws many of them in one draw call).
  virtual HeatmapTexture region(const std::string& key, const MapVersion& version, const ShownMap& map,
                                const ScaleRange& range, Colormap colormap, ImVec2 pixels) {
    return {image(key, version, map, range, colormap, pixels)};
  }
};

class NullHeatmapImages final : public HeatmapImages {
 public:
  ImTextureID image(const std::string& key, const MapVersion& version, const ShownMap& map, const ScaleRange& range,
                    Colormap colormap, ImVec2 pixels) override;
};

// One heatmap drawn this frame, in framebuffer pixels (the screenshot sidecar lists them).
struct DrawnHeatmap {
  std::string key;
  int layer = -1, head = -1;
  int rows = 0, cols = 0;          // the map's cells
  int texels_x = 0, texels_y = 0;  // what was drawn: the cells, or fewer (block maxima) when they outnumber pixels
  ImVec2 min, max;  // the cell area
  ScaleRange range;
  Colormap colormap = Colormap::viridis;
  float label_px = 0;                      // token labels' font size in framebuffer pixels (0: none)
  bool row_labels = false, col_labels = false;  // which labels this map draws (presentation shares them)
  bool hidden = false;                     // presentation's reveal: hidden until shown
  MapMask mask;                            // the cells no query could see (drawn in the masked colour)
  int tokens = 0;                          // the full map's side the mask refers to
  bool relative_bar = false;               // its colour bar shows a share of its own largest value
  std::vector<int> named;                  // the rows (and columns) a lesson step names (HeatmapSpec::named)
  bool named_only = false;                 // labels thinned to the named tokens alone
};

// A colour bar drawn this frame (framebuffer pixels): every map's range should have one.
struct DrawnBar {
  ScaleRange range;
  Colormap colormap = Colormap::viridis;
  ImVec2 min, max;
};

// A panel drawn this frame (the lesson caption), in framebuffer pixels, with its text.
struct DrawnPanel {
  std::string name;
  std::string text;
  ImVec2 min, max;
};

// The font atlas: the characters beyond the base fonts' scripts that the text uses, those the
// body font still lacks (shown as a box), and the atlas texture's size.
struct DrawnFonts {
  int extra_glyphs = 0;
  std::vector<unsigned> missing_glyphs;
  int atlas_width = 0, atlas_height = 0;
};

struct FrameReport {
  std::vector<DrawnHeatmap> heatmaps;
  std::vector<DrawnBar> bars;
  std::vector<DrawnPanel> panels;
  DrawnFonts fonts;
  std::vector<DrawnText> texts;          // every text drawn (read back from the draw lists)
  std::vector<std::string> scrolling;    // windows whose content needs scrolling
  int heatmap_renders = 0;  // maps coloured (uploaded to the GPU) this frame: none on a still screen
  int draw_calls = 0;       // ImGui draw commands this frame (an atlas of maps draws many in one)
  int heatmaps_pending = 0; // maps on screen still showing older data (their new data waits for a later frame)
  double ui_ms = 0;         // the panels' drawing (draw_app and ImGui::Render), uploads included
  double upload_ms = 0;     // ... of which colouring maps into textures
  double render_ms = 0;     // GL drawing of ImGui's draw lists
  double fonts_ms = 0;      // rebuilding the font atlas before the frame (a new character, a new size; else 0)
  bool picture_skipped = false;  // not drawn: the result it asked for came while it ended (app.cpp)
};


struct Fonts {
  ImFont* body = nullptr;
  ImFont* heading = nullptr;
  ImFont* title = nullptr;
  ImFont* caption = nullptr;  // the lesson panel's text presenting (24 px on a 720-line screen)
};

class RegionMaps;  // app/gui/work/region_maps.h: zoomed maps off the UI thread

struct UiContext {
  const Derived* derived = nullptr;  // null until the first good result
  AblationStatus ablation;           // head ablation's job, as of this frame (app/gui/work/ablation_job.h)
  FitStatus fit;                     // the Head width view's pattern fit, as of this frame (app/gui/work/fit_job.h)
  PatchingStatus patching;           // activation patching's job, as of this frame (app/gui/work/patching_job.h)
  ExactHeadStatus exact_head;        // long-input mode: the opened head's exact map (app/gui/work/exact_head_job.h)
  HeatmapImages* images = nullptr;
  const RegionMaps* regions = nullptr;  // null (headless tests): zoomed regions computed on the spot
  FrameReport* report = nullptr;     // may be null
  StatusInfo status;
  Fonts fonts;
  const std::vector<std::string>* examples = nullptr;
  const std::vector<std::shared_ptr<const Lesson>>* lessons = nullptr;  // the Lessons menu
  bool hide_maps = false;   // presentation's reveal: maps drawn as "?" until shown
  bool frame_maps = false;  // a thin frame around each map (presentation)
};

}  // namespace hs::gui
