#pragma once
// The JSON object `headscope-cli ablate --json` writes (and the Python module's Model.ablate
// returns): mode, measure ("mean_loss" or {position, token_id, token, pieces}), token_ids, tokens,
// reference (line counts, with --reference), notes, then for each head alone base_loss,
// base_logprob [T-1], delta_loss [layer][head], base_measure, delta_measure [layer][head],
// delta_logprob [layer][head][T-1], compute_ms; for a group knock_out [[layer, head]], base_loss,
// delta_loss, base_measure, delta_measure, base_logprob [T-1], delta_logprob [T-1], compute_ms.
#include <ostream>

#include "core/analysis/ablation_question.h"

namespace hs {

void write_ablation_json(std::ostream& out, const AblationAnswer& answer);

}  // namespace hs
