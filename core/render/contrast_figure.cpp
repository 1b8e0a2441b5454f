#include "core/render/contrast_figure.h"

#include <algorithm>
#include <cassert>
#include <memory>

#include "core/render/figure_text.h"
#include "core/render/heatmap_figure.h"
#include "core/render/map_mask.h"
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

}  // namespace

Figure contrast_figure(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                       const ColourScale& colours, const FigureStyle& style) {
  assert(layer >= 0 && layer < a.run.n_layers() && head >= 0 && head < a.run.n_heads() && "checked by the caller");
  const Map& ma = a.run.attention[size_t(layer)][size_t(head)];
  const Map& mb = b.run.attention[size_t(layer)][size_t(head)];
  const std::string where = "layer " + std::to_string(layer) + " \u00b7 head " + std::to_string(head);
  // A and B on one range: the larger of the two maps' tops.
  ColourScale shared = colours;
  shared.per_map = false;
  shared.fixed_max = std::max(colour_scale_max({&ma}, colours.ignore_first_key, &a.run.special_tokens),
                              colour_scale_max({&mb}, colours.ignore_first_key, &b.run.special_tokens));
  HeatmapFigureExtras ea, eb;
  // On a page the model's name would crowd a third of its width; the natural size has room.
  ea.title = (style.sized() ? "A \u00b7 " : "A \u00b7 " + figure_model_name(a.run) + " \u00b7 ") + where;
  const std::string change = format("change %.3f", double(contrast.heads[size_t(layer)][size_t(head)].distance));
  // Two models: B's name too (the natural size has room; a page does not).
  eb.title = "B \u00b7 " + (contrast.models && !style.sized() ? figure_model_name(b.run) + " \u00b7 " : std::string()) + change;
  // A page holds the three maps side by side: each part gets a third of its width.
  constexpr double kGap = 18.0;
  FigureStyle part = style;
  if (part.page_width > 0) part.page_width = (style.page_width - 2 * kGap) / 3;
  const Figure fa = heatmap_figure(a, layer, head, shared, part, ea);
  const Figure fb = heatmap_figure(b, layer, head, shared, part, eb);
  // B - A over the tokens both sentences have; the layer's causal mask holds there too (the
  // alignment keeps token order), a window's does not (positions shift), so only causal is kept.
  // The figure draws from the run it is given: this one lives as long as the figure's drawing.
  const Map diff = difference_map(ma, mb, contrast.alignment);
  struct Held {
    RunAnalysis run;
    MapMask mask;
  };
  const auto held = std::make_shared<Held>();
  held->run = one_map_run(a.run, diff, paired_labels(contrast.alignment, a.run.tokens, b.run.tokens));
  const RunAnalysis& d = held->run;
  ColourScale signed_scale;
  signed_scale.colormap = kContrastColormap;
  signed_scale.fixed_max = std::max(diff.cwiseAbs().maxCoeff(), 1e-6f);
  held->mask.causal = layer_mask(a.run, layer).causal;
  HeatmapFigureExtras ed;
  ed.title = "B \u2212 A";
  ed.bar_title = "B \u2212 A weight";
  ed.mask = &held->mask;
  Figure fd = heatmap_figure(d, 0, 0, signed_scale, part, ed);
  fd.draw = [held, draw = std::move(fd.draw)](Canvas& canvas) { draw(canvas); };
  Figure out = figures_side_by_side({fa, fb, fd}, kGap);
  // What was compared, in words: the two sentences and what "change" means. Not on a page of a
  // fixed height (it would not fit) and not with --no-caption.
  if (style.show_caption && style.page_height <= 0 && contrast.models) {
    out = with_caption(std::move(out), contrast_models_caption(a, b), style.styled() ? style.text_size() : 11.0);
  } else if (style.show_caption && style.page_height <= 0) {
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
