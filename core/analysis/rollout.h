#pragma once
// Attention rollout (Abnar & Zuidema 2020, "Quantifying Attention Flow in Transformers"): how much
// each output position draws on each input token through every layer, counting the residual
// connection as an identity path.
//   per layer l:  Â_l = 0.5 * mean_h A_l,h + 0.5 * I        (rows still sum to 1)
//   rollout:      R_1 = Â_1,  R_l = Â_l R_{l-1},  R = R_L   [T, T], rows sum to 1
// Row i of R is a distribution over input tokens; causal models keep R lower triangular.
#include <vector>

#include "core/util/tensor.h"

namespace hs {

// maps: [layer][head] -> [T, T] whole maps (rows sum to 1); `layers` the first that many layers
// (-1: all). Returns [T, T]; empty for no layers. With `each`, every layer's product R_l is
// appended to it as well (a prefix-reusing analysis multiplies only new rows onto them).
Map attention_rollout(const ModelMaps& maps, int layers = -1, std::vector<Map>* each = nullptr);

}  // namespace hs
