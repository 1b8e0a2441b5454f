#pragma once
// The order in which the head grid and the difference matrix show a layer's heads: the model's
// (0 .. H-1), or clustered, the leaf order of an average-linkage clustering of the layer's head
// distance (core/analysis/head_clustering.h), so similar heads sit side by side. Labels always
// keep each head's real index.
#include <vector>

#include "core/analysis/head_clustering.h"
#include "core/analysis/run_analysis.h"

namespace hs::gui {

// The clustering of `layer`'s heads (empty when the layer has no distance matrix).
HeadClustering layer_clustering(const RunAnalysis& a, int layer);

// [H] heads in display order: position -> head.
std::vector<int> head_order(const RunAnalysis& a, int layer, bool clustered);

}  // namespace hs::gui
