#pragma once
// One alias for every map and matrix: row-major float32, so .data() goes straight to a
// texture, a PNG, a .npy file or a JSON writer without a copy or a transpose.
#include <Eigen/Core>
#include <vector>

namespace hs {

using Map = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXf;

// Maps of one model run: [layer][head] -> Map [T, T].
using LayerMaps = std::vector<Map>;
using ModelMaps = std::vector<LayerMaps>;

}  // namespace hs
