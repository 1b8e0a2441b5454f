#include "core/render/contrast_figure.h"

#include <algorithm>
#include <cassert>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "core/render/canvas.h"
#include "core/render/figure_text.h"
#include "core/render/heatmap_figure.h"
#include "core/render/map_mask.h"
#include "core/render/table_figure.h"
#include "core/util/errors.h"
#include "core/util/format.h"

namespace hs {
namespace {

// A run holding one map as layer 0, head 0 (labels `tokens`), as heatmap_figure draws a head.
RunAnalysis one_map_run(const AttentionRun& like, const Map& map, std::vector<std::string> tokens) {
  RunAnalysis r;
  r.run.tokens = std::move(tokens);
  r.run.info = like.info;
  r.run.attention = {{map}};
  return r;
}

// Two models on one input: which two, on what, and what "change" means.
std::vector<std::string> contrast_models_caption(const RunAnalysis& a, const RunAnalysis& b) {
  const auto model = [](const RunAnalysis& r) {
    return r.request.model_path + (r.run.info.weight_types.empty() ? "" : " (" + r.run.info.weight_types + ")");
  };
  return {"A: " + model(a), "B: " + model(b), "input: " + a.request.sentence,
          "change: the total variation between the head's rows in A and B (0: the same weights, 1: no key in common), "
          "averaged over every query row."};
}

std::string contrast_where(int layer, int head) {
  return "layer " + std::to_string(layer) + " \u00b7 head " + std::to_string(head);
}

std::string contrast_change_text(const ContrastResult& contrast, int layer, int head) {
  return format("change %.3f", double(contrast.heads[size_t(layer)][size_t(head)].distance));
}

// The head's B - A over the tokens both sentences have, on a diverging bar symmetric about 0. The
// layer's causal mask holds there too (the alignment keeps token order), a window's does not
// (positions shift), so only causal is kept. The figure draws from a run it holds itself.
Figure contrast_difference_part(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer,
                                int head, const FigureStyle& style, const std::string& title) {
  const Map diff = difference_map(a.run.attention[size_t(layer)][size_t(head)], b.run.attention[size_t(layer)][size_t(head)],
                                  contrast.alignment);  // [paired, paired]
  struct Held {
    RunAnalysis run;
    MapMask mask;
  };
  const auto held = std::make_shared<Held>();
  held->run = one_map_run(a.run, diff, paired_labels(contrast.alignment, a.run.tokens, b.run.tokens));
  ColourScale signed_scale;
  signed_scale.colormap = kContrastColormap;
  signed_scale.fixed_max = std::max(diff.cwiseAbs().maxCoeff(), 1e-6f);
  held->mask.causal = layer_mask(a.run, layer).causal;
  HeatmapFigureExtras ed;
  ed.title = title;
  ed.bar_title = "B \u2212 A weight";
  ed.mask = &held->mask;
  Figure fd = heatmap_figure(held->run, 0, 0, signed_scale, style, ed);
  fd.draw = [held, draw = std::move(fd.draw)](Canvas& canvas) { draw(canvas); };
  return fd;
}

// A, B (one colour scale: the larger of the two maps' tops) and B - A side by side; on a page
// each part gets a third of its width.
Figure contrast_maps_row(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                         const ColourScale& colours, const FigureStyle& style) {
  const Map& ma = a.run.attention[size_t(layer)][size_t(head)];
  const Map& mb = b.run.attention[size_t(layer)][size_t(head)];
  ColourScale shared = colours;
  shared.per_map = false;
  shared.fixed_max = std::max(colour_scale_max({&ma}, colours.ignore_first_key, &a.run.special_tokens),
                              colour_scale_max({&mb}, colours.ignore_first_key, &b.run.special_tokens));
  HeatmapFigureExtras ea, eb;
  // On a page the model's name would crowd a third of its width; the natural size has room.
  ea.title = (style.sized() ? "A \u00b7 " : "A \u00b7 " + figure_model_name(a.run) + " \u00b7 ") + contrast_where(layer, head);
  // Two models: B's name too (the natural size has room; a page does not).
  eb.title = "B \u00b7 " + (contrast.models && !style.sized() ? figure_model_name(b.run) + " \u00b7 " : std::string()) +
             contrast_change_text(contrast, layer, head);
  constexpr double kGap = 18.0;
  FigureStyle part = style;
  if (part.page_width > 0) part.page_width = (style.page_width - 2 * kGap) / 3;
  const Figure fa = heatmap_figure(a, layer, head, shared, part, ea);
  const Figure fb = heatmap_figure(b, layer, head, shared, part, eb);
  const Figure fd = contrast_difference_part(a, b, contrast, layer, head, part, "B \u2212 A");
  return figures_side_by_side({fa, fb, fd}, kGap);
}

// The smallest cell side of a figure's maps, points (0 without maps).
double contrast_smallest_cell(const Figure& f) {
  double smallest = 0;
  for (const CellBlock& b : f.cells) {
    const double cell = std::min(b.width / std::max(b.cols, 1), b.height / std::max(b.rows, 1));
    smallest = smallest > 0 ? std::min(smallest, cell) : cell;
  }
  return smallest;
}

// The change map (which heads changed) beside this head's B - A (how). On a page the width is
// split where B - A gets nearly its largest cells (within 10%) and the change map the most room.
Figure contrast_maps_compact(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                             const ColourScale& colours, const FigureStyle& style, const std::string& title) {
  constexpr double kGap = 12.0;
  struct Split {
    double cell;
    Figure figure;
  };
  std::vector<Split> splits;
  // A page of a given height alone: both parts take the width they need (one try).
  const std::vector<double> shares = style.page_width > 0 ? std::vector<double>{0.34, 0.38, 0.42, 0.46, 0.5} : std::vector<double>{0};
  for (const double share : shares) {
    FigureStyle left = style, right = style;
    if (style.page_width > 0) {
      left.page_width = share * (style.page_width - kGap);
      right.page_width = style.page_width - kGap - left.page_width;
    }
    try {
      const Figure table = contrast_change_figure(contrast, colours.colormap, left);
      const Figure diff = contrast_difference_part(a, b, contrast, layer, head, right, title);
      splits.push_back({contrast_smallest_cell(diff), figures_side_by_side({table, diff}, kGap)});
    } catch (const InputError&) {
      // this split leaves one part too little room; another may not
    }
  }
  if (splits.empty()) {
    throw InputError("a page of " + format_pt(style.page_width) + " x " + format_pt(style.page_height) +
                     " pt is too small for the contrast figure's change map beside B \u2212 A");
  }
  double largest = 0;
  for (const Split& s : splits) largest = std::max(largest, s.cell);
  for (auto s = splits.rbegin(); s != splits.rend(); ++s)  // the table's largest share first
    if (s->cell >= 0.9 * largest) return s->figure;
  return splits.back().figure;
}

// `lines` fitted to the page's width at the text size (each wraps to two lines, then shrinks to
// 6 pt, then is shortened with "…"), left aligned, as a figure `style.page_width` wide.
Figure contrast_lines_figure(const std::vector<std::string>& lines, const FigureStyle& style) {
  MeasureCanvas mc(style.font);
  const double size = style.text_size(), margin = std::max(2.0, 0.5 * size);
  std::vector<FittedText> fitted;
  Figure f;
  f.font = style.font;
  f.width = style.page_width;
  for (const std::string& line : lines) {
    fitted.push_back(fit_text(mc, line, TextStyle{size, false, {0, 0, 0}}, style.page_width - 2 * margin));
    f.height += fitted.back().height();
  }
  f.height += margin;
  f.draw = [fitted, margin](Canvas& c) {
    double y = 0;
    for (const FittedText& t : fitted) {
      draw_fitted(c, t, margin, y, HAlign::left);
      y += t.height();
    }
  };
  return f;
}

// On a page, the maps: the first of A, B and B - A side by side; the change map beside B - A;
// B - A alone whose cells are kContrastRowCell points or more, else the one of them with the
// largest cells. InputError when none fits.
Figure contrast_page_maps(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                          const ColourScale& colours, const FigureStyle& style) {
  const std::string title = "B \u2212 A \u00b7 " + contrast_where(layer, head) + " \u00b7 " + contrast_change_text(contrast, layer, head);
  const std::function<Figure()> layouts[] = {
      [&] { return contrast_maps_row(a, b, contrast, layer, head, colours, style); },
      [&] { return contrast_maps_compact(a, b, contrast, layer, head, colours, style, title); },
      [&] { return contrast_difference_part(a, b, contrast, layer, head, style, title); },
  };
  std::optional<Figure> best;
  std::string refusal;
  for (const std::function<Figure()>& layout : layouts) {
    try {
      Figure f = layout();
      if (contrast_smallest_cell(f) >= kContrastRowCell) return f;
      if (!best || contrast_smallest_cell(f) > contrast_smallest_cell(*best)) best = std::move(f);
    } catch (const InputError& e) {
      refusal = e.what();  // this layout does not fit; a smaller one may (the last one's reason is said)
    }
  }
  if (!best) throw InputError(refusal);
  return *best;
}

// On a page: the maps above the lines saying what A and B are (not with --no-caption), the maps
// taking the height the lines leave.
Figure contrast_page_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                            const ColourScale& colours, const FigureStyle& style) {
  if (!style.show_caption) return contrast_page_maps(a, b, contrast, layer, head, colours, style);
  FigureStyle lines_style = style;
  // A page of a given height alone: the lines as wide as the maps laid out at its full height.
  if (style.page_width <= 0) lines_style.page_width = contrast_page_maps(a, b, contrast, layer, head, colours, style).width;
  const Figure sides = contrast_lines_figure(contrast_sides(a, b, contrast), lines_style);
  FigureStyle maps_style = style;
  if (style.page_height > 0) maps_style.page_height = std::max(style.page_height - sides.height, 1.0);
  return figures_in_line({contrast_page_maps(a, b, contrast, layer, head, colours, maps_style), sides}, 0, true);
}

}  // namespace

std::vector<std::string> contrast_sides(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast) {
  if (!contrast.models) return {"A: " + a.request.sentence, "B: " + b.request.sentence};
  const auto model = [](const RunAnalysis& r) {
    const std::string& path = r.request.model_path;
    const size_t slash = path.find_last_of('/');
    return (slash == std::string::npos ? path : path.substr(slash + 1)) +
           (r.run.info.weight_types.empty() ? "" : " (" + r.run.info.weight_types + ")");
  };
  const std::string input = !a.request.sentence.empty() ? a.request.sentence
                                                        : std::to_string(a.run.n_tokens()) + " token ids (--input-ids)";
  return {"A: " + model(a), "B: " + model(b), "input: " + input};
}

Figure contrast_change_figure(const ContrastResult& contrast, Colormap colormap, const FigureStyle& style) {
  TableFigure t = layers_heads_table(contrast.distance_grid());  // [layers, heads]
  t.bar.colormap = colormap;
  t.bar.lo = 0;
  t.bar.hi = std::max(t.values.maxCoeff(), 1e-6f);
  t.bar.title = "change (mean row total variation)";
  t.title = contrast.models ? "change per head, A \u2192 B" : "change per head";
  return table_figure(t, style);
}

Figure contrast_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                       const ColourScale& colours, const FigureStyle& style) {
  assert(layer >= 0 && layer < a.run.n_layers() && head >= 0 && head < a.run.n_heads() && "checked by the caller");
  if (style.sized()) return contrast_page_figure(a, b, contrast, layer, head, colours, style);
  Figure out = contrast_maps_row(a, b, contrast, layer, head, colours, style);
  // What was compared, in words: the two sentences and what "change" means (not with --no-caption).
  if (style.show_caption && contrast.models) {
    out = with_caption(std::move(out), contrast_models_caption(a, b), style.styled() ? style.text_size() : 11.0);
  } else if (style.show_caption) {
    out = with_caption(std::move(out),
                       {"A: " + a.request.sentence, "B: " + b.request.sentence,
                        "change: the total variation between the head's rows in A and B over the aligned keys (0: the "
                        "same weights, 1: no key in common), averaged over the paired query rows from the first changed "
                        "token on."},
                       style.styled() ? style.text_size() : 11.0);
  }
  return out;
}

}  // namespace hs
