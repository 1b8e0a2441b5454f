#pragma once
// The human-readable `maps` output, like the lesson's printout.
#include <ostream>

#include "core/analysis/run_analysis.h"

namespace hs::cli {

// Throws InputError when layer or query is out of range.
void print_text_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query);

// The report of a long-input run (analysis.long_input()): why the mode, per head its exact
// numbers and the keys the query weights most (from exact rows); no T-wide tables.
void print_compact_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query);

}  // namespace hs::cli
