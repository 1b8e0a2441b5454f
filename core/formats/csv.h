#pragma once
// CSV as RFC 4180 reads it: a field holding a comma, a double quote, a line break or an
// edge space is quoted, with quotes doubled; rows end in "\n". Numbers use %.9g (round-trips
// a float32).
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/tensor.h"

namespace hs {

std::string csv_field(std::string_view text);
// A number as %.9g; NaN (no value) as an empty field.
std::string csv_number(double v);

// First row: `corner`, then the column labels; then one row per matrix row: its label, then
// the values. m: [rows, cols]; the label counts must match.
void write_matrix_csv(std::ostream& out, const Map& m, const std::vector<std::string>& row_labels,
                      const std::vector<std::string>& col_labels, std::string_view corner);

}  // namespace hs
