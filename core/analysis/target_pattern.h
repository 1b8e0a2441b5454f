#pragma once
// Target patterns for the pattern fit (pattern_fit.h), named by one string that the CLI's
// --pattern, the session's "width_pattern" and the app's Width view share:
//   previous        each query on the token before it (token 0 on itself)
//   first           each query on token 0
//   token:N         each query on token N
//   permutation:S   each query on one key, a random permutation of the keys (seed S; "permutation": 0)
//   head:L:H        the run's map of layer L, head H (whole maps)
//   FILE.npy        a float32 [T, T] array; FILE.csv: T rows of T numbers, or the query\key matrix
//                   that export writes (a header row and a label column)
#include <string>

#include "core/analysis/run_analysis.h"

namespace hs {

// The pattern for `analysis` (its T tokens). InputError saying what was expected for an unknown
// name, a token or head out of range, or a file that is not a T x T row-stochastic map (checked by
// check_pattern_fit, the size against this run's T).
Map target_pattern(const std::string& spec, const RunAnalysis& analysis);

// What the pattern is, for titles: "previous token", "token 3 'Priya'", "L0 h2's map", ...
std::string pattern_title(const std::string& spec, const RunAnalysis& analysis);

// Whether `spec` has the form of a pattern (a file is not opened: target_pattern checks it).
bool is_pattern_name(const std::string& spec);

}  // namespace hs
