#pragma once
// The human-readable `maps` output, like the lesson's printout.
#include <ostream>
#include <string>

#include "core/analysis/run_analysis.h"

namespace hs::cli {

// Throws InputError when layer or query is out of range.
void print_text_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query);

// The report of a long-input run (analysis.long_input()): why the mode, per head its exact
// numbers and the keys the query weights most (from exact rows); no T-wide tables.
// `display_size_asked` (--display-size, 0: not given) is named when the maps hold fewer cells.
void print_compact_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query, int display_size_asked = 0);

// "--display-size 512 holds 500 x 500 cells: ..." when a long-input run's maps have fewer cells per
// side than asked (whole blocks of tokens), else "".
std::string display_size_note(const RunAnalysis& analysis, int display_size_asked);

// A weight with 3 significant digits ("0.0412", "0.000312", "1"), never rounded to 0.000.
std::string significant(float v);

}  // namespace hs::cli
