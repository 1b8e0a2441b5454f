#pragma once
// The human-readable `maps` output, like the lesson's printout.
#include <ostream>

#include "core/model/model_run.h"

namespace hs::cli {

// Throws InputError when layer or query is out of range.
void print_text_report(std::ostream& out, const AttentionRun& run, int layer, int query);

// The report of a long-input run (run.compact()): per head its exact numbers and the keys the
// query weights most (from exact rows); no T-wide tables.
void print_compact_report(std::ostream& out, const AttentionRun& run, int layer, int query);

}  // namespace hs::cli
