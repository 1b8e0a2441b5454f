#pragma once
// Inside core/export: what the view registry's writers (view_registry.cpp: figures and data files)
// and its interactive pages (view_pages.cpp: .html) share. Not for callers outside core/export:
// they use export.h and view_registry.h.
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"
#include "core/export/export.h"

namespace hs::view_writers {

// The chosen query tokens (spec.queries, InputError naming one out of range), or the last token.
std::vector<int> shown_queries(const ViewExport& in);
// InputError when the run has no average map of spec.layer / no rollout (naming the token limit)
// / no role scores or spec.role is not a role.
void check_average(const ViewExport& in);
void check_rollout(const ViewExport& in);
void check_roles(const ViewExport& in);
// The caller's ablation (not owned), or computed now (InputError for a model without a loss).
std::shared_ptr<const HeadAblation> ablation_for(const ViewExport& in);

// The interactive pages (core/export/html_page.h): what each view puts on one.
std::string maps_page(const ViewExport& in);  // heads, head, heatmap, overview
std::string query_page(const ViewExport& in);
std::string pairs_page(const ViewExport& in);  // difference, distance
std::string average_page(const ViewExport& in);
std::string rollout_page(const ViewExport& in);
std::string roles_page(const ViewExport& in);
std::string ablation_page(const ViewExport& in);

}  // namespace hs::view_writers
