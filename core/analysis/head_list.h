#pragma once
// A list of heads as a user types it: "LAYER.HEAD,LAYER.HEAD,..." ("1.3,2.5"), layers and heads
// from 0 (`headscope-cli ablate --knock-out`).
#include <string>
#include <vector>

#include "core/analysis/head_ablation.h"

namespace hs {

// The heads of `text` in the order given. InputError naming the text, the bad item and the form
// expected for an empty list or item, an item that is not two whole numbers joined by '.', and a
// head listed twice.
std::vector<HeadRef> parse_head_list(const std::string& text);

// InputError naming the head and the model's ranges for a head outside n_layers x n_heads.
void check_head_list(const std::vector<HeadRef>& heads, int n_layers, int n_heads);

// "1.3,2.5"
std::string head_list_text(const std::vector<HeadRef>& heads);

}  // namespace hs
