#pragma once
// Heads ordered so that similar heads sit together: agglomerative clustering of a layer's head
// distance matrix (RunAnalysis::distance, [H, H], 0 = same rows) with average linkage (UPGMA):
// start with every head alone, repeatedly join the two clusters whose mean pairwise distance is
// smallest (ties: the lowest cluster ids), until one is left. The leaf order of that tree puts
// every joined pair side by side; the merges are the dendrogram.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

struct ClusterMerge {
  int a = 0, b = 0;      // the joined clusters: ids < H are heads, H + k is the cluster of merge k
  float distance = 0;    // their average-linkage distance (non-decreasing over merges for UPGMA)
  int size = 0;          // heads in the new cluster
};

struct HeadClustering {
  std::vector<int> order;           // [H] heads in leaf order (left to right)
  std::vector<ClusterMerge> merges;  // [H - 1] in the order they were made
};

// distance: [H, H] symmetric, zero diagonal. H = 0 gives an empty result.
HeadClustering cluster_heads(const Map& distance);

}  // namespace hs
