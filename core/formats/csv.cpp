#include "core/formats/csv.h"

#include <cassert>
#include <cmath>
#include <cstdio>

namespace hs {

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' ' || text.front() == '\t'));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
  return out;
}

std::string csv_number(double v) {
  if (std::isnan(v)) return {};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

void write_matrix_csv(std::ostream& out, const Map& m, const std::vector<std::string>& row_labels,
                      const std::vector<std::string>& col_labels, std::string_view corner) {
  assert(Eigen::Index(row_labels.size()) == m.rows() && Eigen::Index(col_labels.size()) == m.cols() &&
         "one label per row and per column");
  out << csv_field(corner);
  for (const std::string& label : col_labels) out << ',' << csv_field(label);
  out << '\n';
  char buf[32];
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    out << csv_field(row_labels[size_t(i)]);
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      std::snprintf(buf, sizeof buf, "%.9g", double(m(i, j)));  // NaN as "nan", as it always was
      out << ',' << buf;
    }
    out << '\n';
  }
}

}  // namespace hs
