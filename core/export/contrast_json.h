#pragma once
// What `headscope-cli compare` writes: the JSON object (the two sentences' tokens, the alignment,
// each head's change and both runs' maps) and the tidy CSV (one row per layer and head).
#include <ostream>

#include "core/analysis/contrast.h"
#include "core/analysis/model_contrast.h"
#include "core/analysis/pair_target.h"
#include "core/analysis/run_analysis.h"

namespace hs {

// {"mode": "sentences" (one model, two sentences) or "models" (two models, one input),
//  "a": {tokens, token_ids, next_tokens, last_token_log_prob, next_token_log_prob (nats; null
//  without a next-token head)}, "b": {...}, "alignment": [{op, a, b}], "first_query_step",
//  "query_rows",
//  with an answer (--target/--versus): "target", "versus" (the texts), "target_id", "versus_id",
//  "target_token", "versus_token", "target_pieces", "versus_pieces", "logit_diff": {"a", "b"},
//  "notes": [sentences], and when patched "patching": [layer][head] shares (null: no gap or not
//  run), "patched_logit_diff": [layer][head], "patched_positions": [[a, b]], "patching_complete",
//  "heads": [layer][head] {distance, rank (1: the most changed), max_row, max_row_step,
//  weight_on_changed_a, _b},
//  with `models` (mode "models"): "model_a", "model_b" {path, name, family, weight_types,
//  n_layers, n_heads, d_model}, "same_file", "shared_layers", "shared_heads", "comparison_notes":
//  [sentences], "next_token": {positions, top1_matches, top1_match_rate, mean_kl, max_kl,
//  max_kl_position} (rates and KL null when not measured),
//  "attention_a" / "attention_b": [layer][head][query][key] (each run's own heads)}
// Readers find keys by name: more may come (another model's side, more measures).
void write_contrast_json(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                         const PairAnswer* answer = nullptr, const ModelComparison* models = nullptr);

// layer,head,distance,max_row,max_row_query_a,max_row_query_b,weight_on_changed_a,weight_on_changed_b,rank
// (+ patching,patched_logit_diff with a patching result; a null share is an empty cell)
void write_contrast_csv(std::ostream& out, const ContrastResult& contrast, const HeadPatching* patching = nullptr);

}  // namespace hs
