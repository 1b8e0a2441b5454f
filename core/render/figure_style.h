#pragma once
// How a figure is laid out beyond its data, set once for a paper's figures: the page size (the
// figure is laid out for it, with text at fixed point sizes, instead of a fixed layout scaled),
// the font size, the title, which axis labels are written, the colour bar's label and the gap
// between panels, the font family. The CLI's --size 3.25x3.25in, --font-size, --font, --title,
// --no-title, --labels, --colorbar-label and --style FILE.json set it; so does the app's export
// dialog (and its settings file's export_style).
#include <optional>
#include <string>

#include "core/render/colormap.h"
#include "core/text/token_label.h"

namespace hs {

// Which token labels an axis gets: as many as fit (auto), every one, none, or every N-th.
enum class LabelMode { automatic, all, none, every };

struct FigureStyle {
  // Points; > 0: the figure is laid out for this page (heatmaps reflow: heads in the arrangement
  // that gives the largest cells, text at font_size). One side alone: the other follows.
  double page_width = 0, page_height = 0;
  double font_size = 0;  // points; 0: the natural layout (8 pt when a page size is given)
  bool show_title = true;
  bool show_caption = true;  // the explanatory text under a table figure (definitions, the intact loss)
  std::string title;  // "" keeps the figure's own title (model, layer, heads)
  LabelMode labels = LabelMode::automatic;
  int label_every = 1;                        // LabelMode::every
  std::optional<std::string> colorbar_label;  // unset keeps the figure's own ("" writes none)
  double gap = -1;                            // points between heatmap panels; < 0: the layout's own
  std::string font;  // font family of all the text, as installed ("" DejaVu Sans; check_font_family)
  SpaceMark space_mark = SpaceMark::dot;  // a token's space on the axes: a thin dot or none (--space-mark)
  // --preset slide: heatmap panels stretch (cells up to kSlideCellAspect : 1) so the maps fill the
  // page, and token labels stay at least kSlideLabelFloor x the text size (thinned, not shrunk).
  bool fill_page = false;

  bool sized() const { return page_width > 0 || page_height > 0; }
  // The text size of a sized or styled figure.
  double text_size() const { return font_size > 0 ? font_size : 8.0; }
  bool styled() const { return sized() || font_size > 0; }
  bool operator==(const FigureStyle& o) const {
    return page_width == o.page_width && page_height == o.page_height && font_size == o.font_size &&
           show_title == o.show_title && show_caption == o.show_caption && title == o.title && labels == o.labels && label_every == o.label_every &&
           colorbar_label == o.colorbar_label && gap == o.gap && font == o.font && space_mark == o.space_mark &&
           fill_page == o.fill_page;
  }
  bool operator!=(const FigureStyle& o) const { return !(*this == o); }
};

// A slide (--preset slide, the export dialog's "slide"): a 16:9 page of 10 x 5.625 in (PowerPoint's,
// Keynote's and Google Slides' 16:9 size) with 14 pt text: shown at 1280 x 720 a point is 1.78 px,
// so text is 25 px and token labels (>= 0.85 x 14 pt) at least 21 px.
constexpr double kSlideWidth = 720, kSlideHeight = 405, kSlideFontSize = 14;
constexpr double kSlideLabelFloor = 0.85;  // token labels: at least this x the text size
constexpr double kSlideCellAspect = 2.0;   // a stretched cell: at most this wide for its height (or tall)

// The layout presets: "slide" (as above); InputError naming the text otherwise.
enum class FigurePreset { none, slide };
FigurePreset parse_figure_preset(const std::string& text);
// Sets what the preset fixes; a page size or a font size set after it still wins.
void apply_figure_preset(FigurePreset preset, FigureStyle& style);

// "auto", "all", "none", "every N" (or "every:N", N >= 1); InputError naming the text otherwise.
void parse_label_mode(const std::string& text, FigureStyle& style);
// The label step a layout uses for `style.labels`: 0 as many as fit, -1 none, else every N-th.
int label_every(const FigureStyle& style);

// A physical length: "3.25in", "8.5cm", "60mm", "234pt", "600px" (px at `px_per_point` pixels a
// point) -> points. A bare number is refused (say which unit). InputError naming the text.
double parse_length(const std::string& text, double px_per_point);

// A length in points for a message, rounded to whole points ("234").
std::string format_pt(double points);

// "3.25x3.25in", "8x6cm", "1600x1200px", "0x2in": the page a figure is laid out for (a unit on
// one side applies to a bare number on the other; 0 leaves that side free; sides from 0.5in).
// Returns false, setting nothing, when neither side has a unit ("1600x1200": the caller's own
// meaning). InputError naming the text when it is neither.
bool parse_page_size(const std::string& text, double px_per_point, FigureStyle& style);

// A style file (strict JSON object). Keys, each optional:
//   "font_size" (points, 4 to 72), "title" (string), "show_title" (bool), "show_caption" (bool), "labels" ("auto",
//   "all", "none", "every N"), "colorbar_label" (string), "gap" (points, 0 to 100),
//   "colormap" (viridis, magma, gray, cividis, rdbu), "width" / "height" (lengths as above, e.g.
//   "3.25in"), "space_mark" ("dot" or "none"), "font" (an installed font family, e.g. "DejaVu Serif"; an unknown one is an error
//   naming the installed families, never a silent substitute).
// Unknown keys, wrong types and values out of range are FormatErrors naming the file and key.
// `colormap` is set only when the file names one.
void apply_style_json(const std::string& json_text, const std::string& file_name, FigureStyle& style,
                      std::optional<Colormap>& colormap);

}  // namespace hs
