#pragma once
// What `headscope-cli compare` writes: the JSON object (the two sentences' tokens, the alignment,
// each head's change and both runs' maps) and the tidy CSV (one row per layer and head).
#include <ostream>

#include "core/analysis/contrast.h"
#include "core/analysis/run_analysis.h"

namespace hs {

// {"a": {tokens, token_ids, next_tokens, last_token_log_prob, next_token_log_prob (nats; null
//  without a next-token head)}, "b": {...}, "alignment": [{op, a, b}], "query_rows",
//  "heads": [layer][head] {distance, max_row, max_row_step, weight_on_changed_a, _b},
//  "attention_a" / "attention_b": [layer][head][query][key]}
void write_contrast_json(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast);

// layer,head,distance,max_row,max_row_query_a,max_row_query_b,weight_on_changed_a,weight_on_changed_b
void write_contrast_csv(std::ostream& out, const ContrastResult& contrast);

}  // namespace hs
