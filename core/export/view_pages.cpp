// The views' interactive pages (.html, core/export/html_page.h): what each view puts on one, as
// the rows of the view registry (view_registry.cpp) point to them.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/head_roles.h"
#include "core/export/html_page.h"
#include "core/export/view_writers.h"
#include "core/render/heatmap_figure.h"
#include "core/render/shown_map.h"
#include "core/util/format.h"

namespace hs::view_writers {
namespace {

constexpr const char* kPageWeightAbout =
    "Attention weight: query i's share of attention on key j (a softmax: each row sums to 1). Chance, "
    "uniform attention, is 1 / (keys the query sees): 1/T for a full row, so weights shrink as the input "
    "grows. Masked cells are keys the query cannot see (causal or windowed attention).";

std::vector<std::string> page_names(const char* what, int n) {
  std::vector<std::string> names;
  for (int k = 0; k < n; ++k) names.push_back(std::string(what) + " " + std::to_string(k));
  return names;
}

// A layer's heads, each with the layer's mask.
PageGroup page_heads_group(const RunAnalysis& a, int layer) {
  PageGroup g{"layer " + std::to_string(layer), "", {}};
  for (int h = 0; h < a.run.n_heads(); ++h) {
    const ShownMap shown = head_map(a.run, layer, h);
    g.maps.push_back({"head " + std::to_string(h), *shown.cells, shown.mask, shown.tokens, 0.0f, std::nullopt});
  }
  return g;
}

// The group of the exported layer among those written.
int page_group_of(const ViewExport& in) {
  const auto at = std::find(in.layers.begin(), in.layers.end(), in.spec.layer);
  return at == in.layers.end() ? 0 : int(at - in.layers.begin());
}

PageContent page_of_maps(const ViewExport& in, const char* what) {
  PageContent c;
  c.title = figure_model_name(in.analysis.run) + " \u00b7 " + what;
  c.about = kPageWeightAbout;
  for (int l : in.layers) c.groups.push_back(page_heads_group(in.analysis, l));
  c.group = page_group_of(in);
  c.map = in.head();
  return c;
}

}  // namespace

std::string maps_page(const ViewExport& in) { return html_page(in, page_of_maps(in, "attention maps")); }

std::string query_page(const ViewExport& in) {
  PageContent c = page_of_maps(in, "where the query tokens look");
  c.about = std::string("Where the chosen query tokens look, head by head: their rows summed, one bar per key "
                        "(choose the queries on the tokens above). ") + kPageWeightAbout;
  c.query_mode = true;
  c.queries = shown_queries(in);
  c.map = -1;
  return html_page(in, c);
}

std::string pairs_page(const ViewExport& in) {
  PageContent c;
  const RunAnalysis& a = in.analysis;
  c.title = figure_model_name(a.run) + " \u00b7 head distance";
  c.about = "Head distance: the mean over query rows of the total variation between the two heads' rows "
            "(half the sum of |A_a - A_b| over the keys), 0 for identical heads, 1 for heads that never attend to "
            "the same key; on the same scale at any length (chance, two uniform heads: 0). Colours run from the "
            "smallest distance between two different heads to the largest, as in the figure (a head against "
            "itself, the diagonal, is 0 and takes the first colour).";
  // The colours as the figure's (difference_figure.h): from the smallest off-diagonal cell up.
  for (int l = 0; l < a.run.n_layers(); ++l) {
    const Map& d = a.distance[size_t(l)];  // [H, H], zero diagonal
    std::optional<float> lo;
    float hi = 0;
    for (Eigen::Index i = 0; i < d.rows(); ++i)
      for (Eigen::Index j = 0; j < d.cols(); ++j)
        if (i != j && std::isfinite(d(i, j))) lo = std::min(lo.value_or(d(i, j)), d(i, j)), hi = std::max(hi, d(i, j));
    if (lo && !(hi > *lo)) lo.reset();  // every pair alike: from 0, as the figure
    c.groups.push_back({"layer " + std::to_string(l), "", {{"head distance", d, std::nullopt, 0, 0.0f, lo}}});
  }
  c.group = in.spec.layer;
  c.map = 0;
  c.token_axes = false;
  c.row_labels = c.col_labels = page_names("head", a.run.n_heads());
  c.row_title = c.col_title = "head";
  c.value_title = "distance";
  return html_page(in, c);
}

std::string average_page(const ViewExport& in) {
  check_average(in);
  PageContent c;
  const RunAnalysis& a = in.analysis;
  c.title = figure_model_name(a.run) + " \u00b7 mean of the heads";
  c.about = std::string("The layer's mean over its heads, on the range of its heads. ") + kPageWeightAbout;
  for (int l : in.layers) {
    const ShownMap shown = average_map(a, l);
    const ColourScale& s = in.spec.colours;
    const float top = s.per_map ? 0.0f : s.ignore_first_key ? a.layer_max_skip_first[size_t(l)] : a.layer_max[size_t(l)];
    c.groups.push_back({"layer " + std::to_string(l), "", {{"mean of the heads", *shown.cells, shown.mask, shown.tokens, top, std::nullopt}}});
  }
  c.group = page_group_of(in);
  c.map = 0;
  return html_page(in, c);
}

std::string rollout_page(const ViewExport& in) {
  check_rollout(in);
  PageContent c;
  const ShownMap shown = rollout_map(in.analysis);
  c.title = figure_model_name(in.analysis.run) + " \u00b7 attention rollout";
  c.about = "Attention rollout: the product over layers of 0.5 A + 0.5 I (A the layer's mean over heads), each row "
            "the share of query i's representation that traces back to input token j; rows sum to 1. Chance, uniform "
            "attention, spreads a row over the keys it sees, so shares shrink as the input grows.";
  c.groups.push_back({"every layer", "", {{"rollout", *shown.cells, shown.mask, shown.tokens, 0.0f, std::nullopt}}});
  c.group_title = "layers";
  c.map = 0;
  c.value_title = "share";
  return html_page(in, c);
}

std::string roles_page(const ViewExport& in) {
  check_roles(in);
  const HeadRoles& r = in.analysis.roles;
  PageContent c;
  c.title = figure_model_name(in.analysis.run) + " \u00b7 head roles";
  c.about = "Each head's score for a role, from 0 to 1, beside the role's chance level: what uniform attention scores "
            "on the same sentence (it falls as the input grows, e.g. 1/T for the previous-token role). ";
  std::string rule = r.label_rule();  // "a head's role is ...": a sentence of its own here
  if (!rule.empty() && rule[0] >= 'a' && rule[0] <= 'z') rule[0] = char(rule[0] - 'a' + 'A');
  c.about += rule;
  for (int role = 0; role < kHeadRoleCount; ++role) {
    if (in.spec.role >= 0 && role != in.spec.role) continue;
    Map t(r.n_layers(), r.n_heads());  // [L, H]
    for (int l = 0; l < r.n_layers(); ++l)
      for (int h = 0; h < r.n_heads(); ++h) t(l, h) = r.scores[size_t(l)][size_t(h)].score[role];
    std::string chance = "chance (uniform attention): ";
    for (int l = 0; l < r.n_layers(); ++l) {
      if (l > 0 && r.chance_same_everywhere()) break;
      chance += (l > 0 ? ", " : "") + (r.chance_same_everywhere() ? "" : "layer " + std::to_string(l) + " ") +
                format("%.3f", r.chance_of(l, HeadRole(role)));
    }
    c.groups.push_back({head_role_name(HeadRole(role)), chance, {{"scores", t, std::nullopt, 0, 1.0f, std::nullopt}}});
  }
  c.group_title = "role";
  c.map = 0;
  c.token_axes = false;
  c.row_labels = page_names("layer", r.n_layers());
  c.col_labels = page_names("head", r.n_heads());
  c.row_title = "layer";
  c.col_title = "head";
  c.value_title = "score";
  return html_page(in, c);
}

std::string ablation_page(const ViewExport& in) {
  const std::shared_ptr<const HeadAblation> ab = ablation_for(in);
  PageContent c;
  c.title = figure_model_name(in.analysis.run) + " \u00b7 ablation";
  c.about = format("Change in the mean next-token loss (nats) when the head is knocked out (%s ablation): above 0 the "
                   "head helped predict this text, 0 no effect (chance: 0); the intact model's loss is %.4f nats. A mean "
                   "over T - 1 predictions, so a longer text gives smaller, steadier changes.",
                   ablation_mode_name(ab->mode), ab->base_loss);
  c.groups.push_back({"every layer", "", {{"change in loss", ab->delta_loss, std::nullopt, 0, 0.0f, std::nullopt}}});
  c.group_title = "layers";
  c.map = 0;
  c.token_axes = false;
  c.row_labels = page_names("layer", ab->n_layers());
  c.col_labels = page_names("head", ab->n_heads());
  c.row_title = "layer";
  c.col_title = "head";
  c.value_title = "change in loss";
  c.colormap = Colormap::rdbu;
  return html_page(in, c);
}

}  // namespace hs::view_writers
