#pragma once
// One self-contained HTML page of a view (`export --view V --out page.html`, File > Export...):
// the view's maps or table embedded as data, the script and styles inline, no request to any other
// file or host, so it opens offline in any browser, years later.
//
// Data: each map is stored as 16-bit integers q over its exact range [lo, hi] (written with 9
// significant digits), base64 of little-endian uint16: value = lo + q (hi - lo) / 65535, within
// (hi - lo) / 131070 of the float32 the .npy holds. The hover shows kHtmlDigits decimals (more when
// a map's range is small), which the step never changes by more than half a unit in the last place
// shown plus that half step; the page states both.
// Colours: the app's colormap table (core/render/colormap.h) and rule (colour_scale.h), the masked
// colour for cells a causal or windowed query cannot see; ranges as the figures take them (a grid:
// its layer's heads together; one head: its own; the average: its layer's heads).
// Interaction and keyboard: docs/html-page.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/render/colormap.h"
#include "core/render/map_mask.h"
#include "core/util/tensor.h"

namespace hs {

struct ViewExport;

// One map of the page: a head's [T, T] map, a layer's average, a [H, H] or [L, H] table.
struct PageMap {
  std::string name;       // "head 3"
  Map cells;              // [rows, cols]
  std::optional<MapMask> mask;  // maps over tokens with a mask: the cells it hides are drawn masked
  int tokens = 0;         // the full map's side in tokens (what the mask refers to)
  float fixed_max = 0;    // > 0: the top of the colour range (the average: its layer's heads' largest)
  // The bottom of a linear colour range (the head-distance table: its smallest off-diagonal cell, as
  // the figure takes it); unset: 0 (a diverging colormap: -top).
  std::optional<float> colour_lo;
};

// A choice of the page's first selector: a layer (its heads), a role (its table).
struct PageGroup {
  std::string name;       // "layer 2"
  std::string note;       // shown under the map: "chance (uniform attention): 0.11"
  std::vector<PageMap> maps;
};

// What a view puts on its page (view_registry.cpp fills it per view).
struct PageContent {
  std::string title;                    // "stories260K · heads"
  std::string about;                    // what the number is, its chance level, its length dependence
  std::string group_title = "layer", map_title = "head";
  std::vector<PageGroup> groups;
  int group = 0, map = -1;              // shown first; map -1: the group's grid
  bool token_axes = true;               // rows and columns are the tokens (else row_labels, col_labels)
  std::vector<std::string> row_labels, col_labels;
  std::string row_title = "query", col_title = "key", value_title = "weight";
  bool query_mode = false;              // the query view: chosen query rows summed, per head
  std::vector<int> queries;
  std::optional<Colormap> colormap;     // instead of the spec's (ablation: diverging)
  // The contrast page (core/export/contrast_page.h): its two runs' maps, heads and change table as a
  // JSON object, the page's "contrast" (groups then empty); the script draws that page instead.
  std::string contrast_json;
};

// A map's page data: name, shape, exact range, 16-bit steps, masked and non-finite cells.
std::string page_map_json_text(const PageMap& m);
// The colormap's 256-entry table, masked colour and whether it is diverging, as the page reads it.
std::string page_colormap_json_text(Colormap cm);

// Pages larger than this are refused (a browser slows down decoding them) unless
// ExportSpec::large_page: about 10 layers x 12 heads of 200 tokens.
constexpr int64_t kHtmlPageMaxBytes = int64_t(8) << 20;
// Decimals the hover shows for a map whose range is about 1 (see above).
constexpr int kHtmlDigits = 4;

// The page of `in` showing `content`; InputError past kHtmlPageMaxBytes (says the size, the limit and
// the flag that allows it).
std::string html_page(const ViewExport& in, const PageContent& content);

}  // namespace hs
