#include "core/export/contrast_page.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/export/export.h"
#include "core/export/html_page.h"
#include "core/export/provenance.h"
#include "core/render/colour_scale.h"
#include "core/render/contrast_figure.h"
#include "core/render/heatmap_figure.h"
#include "core/render/map_mask.h"
#include "core/render/shown_map.h"
#include "core/util/utf8.h"

namespace hs {
namespace {

using nlohmann::json;

constexpr const char* kContrastPageAbout =
    "Change of a head: the mean over the query rows both sides have (a minimal pair: from the first changed "
    "token on) of the total variation between its rows in A and in B, half the summed |A - B| over the keys; "
    "0 for the same weights, 1 for rows with no key in common. Chance: two heads attending uniformly score 0, "
    "and for the same head on the same tokens any change is the pair's doing; a longer input averages over "
    "more rows. The selected head's maps are attention weights (rows sum to 1; uniform attention is 1 / the "
    "keys a query sees, so weights shrink as the input grows): A and B on one colour scale, B - A on a "
    "diverging scale symmetric about 0 (red: B looks more, blue: less), over the tokens both sides have.";

std::vector<std::string> contrast_page_labels(const RunAnalysis& r) {
  std::vector<std::string> out;
  for (const std::string& s : r.map_labels.empty() ? r.run.tokens : r.map_labels) out.push_back(utf8_repair(s));
  return out;
}

json contrast_page_map(const std::string& name, const Map& cells, const MapMask& mask, int tokens, float top) {
  return json::parse(page_map_json_text(PageMap{name, cells, mask, tokens, top, std::nullopt}));
}

// One head's A, B (tops: the larger of the two maps' tops, as contrast_figure's) and B - A (top:
// its largest |cell|, diverging; the layer's causal mask, as the figure keeps it).
json contrast_page_head(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, int layer, int head,
                        const ColourScale& colours) {
  const Map& ma = a.run.attention[size_t(layer)][size_t(head)];  // [Ta, Ta]
  const Map& mb = b.run.attention[size_t(layer)][size_t(head)];  // [Tb, Tb]
  const float top = std::max(colour_scale_max({&ma}, colours.ignore_first_key, &a.run.special_tokens),
                             colour_scale_max({&mb}, colours.ignore_first_key, &b.run.special_tokens));
  const ShownMap sa = head_map(a.run, layer, head), sb = head_map(b.run, layer, head);
  const Map diff = difference_map(ma, mb, contrast.alignment);  // [P, P]
  MapMask dmask;
  dmask.causal = layer_mask(a.run, layer).causal;
  return {{"a", contrast_page_map("A", *sa.cells, sa.mask, sa.tokens, std::max(top, 1e-30f))},
          {"b", contrast_page_map("B", *sb.cells, sb.mask, sb.tokens, std::max(top, 1e-30f))},
          {"d", contrast_page_map("B \u2212 A", diff, dmask, int(diff.rows()), std::max(diff.cwiseAbs().maxCoeff(), 1e-6f))}};
}

// The heads by change, largest first (rank 1), as compare's report and CSV rank them.
json contrast_page_heads(const ContrastResult& contrast) {
  const std::vector<std::vector<int>> ranks = change_ranks(contrast);
  json heads = json::array();
  for (size_t l = 0; l < contrast.heads.size(); ++l)
    for (size_t h = 0; h < contrast.heads[l].size(); ++h)
      heads.push_back({{"layer", l}, {"head", h}, {"distance", contrast.heads[l][h].distance}, {"rank", ranks[l][h]}});
  std::stable_sort(heads.begin(), heads.end(), [](const json& x, const json& y) { return x["rank"] < y["rank"]; });
  return heads;
}

json contrast_page_data(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast, const ContrastExport& spec,
                        const ExportSpec& spec_b) {
  const Map change = contrast.distance_grid();  // [L, H]
  json maps = json::array();
  for (size_t l = 0; l < contrast.heads.size(); ++l) {
    json layer = json::array();
    for (size_t h = 0; h < contrast.heads[l].size(); ++h)
      layer.push_back(contrast_page_head(a, b, contrast, int(l), int(h), spec.colours));
    maps.push_back(layer);
  }
  json sides = json::array();
  for (const std::string& s : contrast_sides(a, b, contrast)) sides.push_back(utf8_repair(s));
  return {{"mode", contrast.models ? "models" : "sentences"}, {"sides", sides}, {"layer", spec.layer}, {"head", spec.head},
          {"heads", contrast_page_heads(contrast)},
          {"change", json::parse(page_map_json_text(PageMap{"change", change, std::nullopt, 0,
                                                            std::max(change.maxCoeff(), 1e-6f), std::nullopt}))},
          {"maps", maps}, {"tokens_a", contrast_page_labels(a)}, {"tokens_b", contrast_page_labels(b)},
          {"tokens_d", paired_labels(contrast.alignment, contrast_page_labels(a), contrast_page_labels(b))},
          {"diff_colormap", json::parse(page_colormap_json_text(kContrastColormap))},
          {"provenance_b", json::parse(provenance_json(b, spec_b))}};
}

}  // namespace

std::string contrast_page(const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                          const ContrastExport& spec) {
  ExportSpec spec_a;
  spec_a.view = View::contrast;
  spec_a.layer = spec.layer;
  spec_a.head = spec.head;
  spec_a.colours = spec.colours;
  spec_a.large_page = spec.large_page;
  const ExportSpec spec_b = spec_a;
  PageContent c;
  c.title = figure_model_name(a.run) + (contrast.models ? " vs " + figure_model_name(b.run) : std::string()) +
            " \u00b7 contrast";
  c.about = kContrastPageAbout;
  c.contrast_json = contrast_page_data(a, b, contrast, spec, spec_b).dump(-1, ' ', false, json::error_handler_t::replace);
  const ViewExport in{a, nullptr, nullptr, spec_a, FigureFormat::png, {}, {}};
  return html_page(in, c);
}

}  // namespace hs
