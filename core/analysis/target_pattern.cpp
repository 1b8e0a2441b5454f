#include "core/analysis/target_pattern.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>
#include <sstream>

#include "core/analysis/pattern_fit.h"
#include "core/formats/npy.h"
#include "core/model/rng.h"
#include "core/util/errors.h"
#include "core/util/file_read.h"
#include "core/util/suggest.h"

namespace hs {
namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  if (s.size() < tail.size()) return false;
  std::string end = s.substr(s.size() - tail.size());
  std::transform(end.begin(), end.end(), end.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return end == tail;
}

// A whole number after "name:" (InputError naming the pattern when it is not one).
int number_after(const std::string& spec, size_t at) {
  const std::string text = spec.substr(at);
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 0 || v > 1000000000L)
    throw InputError("pattern '" + spec + "': expected a whole number after '" + spec.substr(0, at) + "'");
  return int(v);
}

// Each query on key to[i].
Map one_hot(const std::vector<int>& to) {
  const Eigen::Index T = Eigen::Index(to.size());
  Map m = Map::Zero(T, T);  // [T, T]
  for (Eigen::Index i = 0; i < T; ++i) m(i, to[size_t(i)]) = 1.0f;
  return m;
}

// A random permutation of 0 .. T-1 (Fisher-Yates with the project's SplitMix64).
std::vector<int> permutation(int T, uint64_t seed) {
  std::vector<int> p(static_cast<size_t>(T));
  std::iota(p.begin(), p.end(), 0);
  Rng rng(seed);
  for (int i = T - 1; i > 0; --i) std::swap(p[size_t(i)], p[size_t(rng.next_u64() % uint64_t(i + 1))]);
  return p;
}

// Numbers of one CSV line; false when a field is not a number (a label or a header).
bool csv_numbers(const std::string& line, std::vector<float>& out) {
  out.clear();
  std::stringstream fields(line);
  std::string field;
  while (std::getline(fields, field, ',')) {
    char* end = nullptr;
    const float v = std::strtof(field.c_str(), &end);
    while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (field.empty() || *end != '\0') return false;
    out.push_back(v);
  }
  return !out.empty();
}

// T rows of T numbers; or export's query\key matrix: a header row, then a label and T numbers a row.
Map read_pattern_csv(const std::string& path) {
  std::stringstream text(read_file(path));
  std::string line;
  std::vector<std::vector<float>> rows;
  std::vector<float> numbers;
  bool labelled = false;
  for (int n = 1; std::getline(text, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (n == 1 && line.rfind("query\\key", 0) == 0) {
      labelled = true;
      continue;
    }
    const std::string cells = labelled ? line.substr(std::min(line.size(), line.find(',') + 1)) : line;
    if (!csv_numbers(cells, numbers))
      throw FormatError(path + ": line " + std::to_string(n) + " is not a row of numbers");
    rows.push_back(numbers);
  }
  Map m(Eigen::Index(rows.size()), rows.empty() ? 0 : Eigen::Index(rows[0].size()));
  for (size_t i = 0; i < rows.size(); ++i) {
    if (Eigen::Index(rows[i].size()) != m.cols())
      throw FormatError(path + ": row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) +
                        " numbers; the first row has " + std::to_string(m.cols()));
    for (size_t j = 0; j < rows[i].size(); ++j) m(Eigen::Index(i), Eigen::Index(j)) = rows[i][j];
  }
  return m;
}

// A pattern file, checked against the run's T and for being row-stochastic.
Map pattern_file(const std::string& path, int T) {
  const Map m = ends_with(path, ".npy") ? read_npy_matrix(path) : read_pattern_csv(path);
  if (m.rows() != T || m.cols() != T) {
    throw InputError("pattern file " + path + " holds a " + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) +
                     " map; this sentence has " + std::to_string(T) + " tokens, so a pattern must be " +
                     std::to_string(T) + " x " + std::to_string(T));
  }
  try {
    check_pattern_fit(m, {1});
  } catch (const InputError& e) {
    throw InputError("pattern file " + path + ": " + e.what());
  }
  return m;
}

Map head_pattern(const std::string& spec, const RunAnalysis& a) {
  const size_t colon = spec.find(':', 5);
  if (colon == std::string::npos) throw InputError("pattern '" + spec + "': expected head:LAYER:HEAD, e.g. head:0:2");
  const int l = number_after(spec.substr(0, colon), 5), h = number_after(spec, colon + 1);
  if (a.run.compact()) throw InputError("pattern '" + spec + "': this run keeps no whole maps (long-input mode)");
  if (l >= a.run.n_layers() || h >= a.run.n_heads()) {
    throw InputError("pattern '" + spec + "': no such head (layers 0 to " + std::to_string(a.run.n_layers() - 1) +
                     ", heads 0 to " + std::to_string(a.run.n_heads() - 1) + ")");
  }
  return a.run.attention[size_t(l)][size_t(h)];
}

std::vector<int> repeated(int T, int to) { return std::vector<int>(size_t(T), to); }

}  // namespace

bool is_pattern_name(const std::string& spec) {
  for (const char* prefix : {"token:", "permutation:", "head:"})
    if (spec.rfind(prefix, 0) == 0) return true;
  return spec == "previous" || spec == "first" || spec == "permutation" || ends_with(spec, ".npy") || ends_with(spec, ".csv");
}

Map target_pattern(const std::string& spec, const RunAnalysis& analysis) {
  const int T = analysis.run.n_tokens();
  if (T == 0) throw InputError("no tokens to draw a pattern over");
  if (spec == "previous") {
    std::vector<int> to(static_cast<size_t>(T));
    for (int i = 0; i < T; ++i) to[size_t(i)] = std::max(0, i - 1);
    return one_hot(to);
  }
  if (spec == "first") return one_hot(repeated(T, 0));
  if (spec.rfind("token:", 0) == 0) {
    const int n = number_after(spec, 6);
    if (n >= T)
      throw InputError("pattern '" + spec + "': token " + std::to_string(n) + " is out of range (the sentence has " +
                       std::to_string(T) + " tokens: 0 to " + std::to_string(T - 1) + ")");
    return one_hot(repeated(T, n));
  }
  if (spec == "permutation") return one_hot(permutation(T, 0));
  if (spec.rfind("permutation:", 0) == 0) return one_hot(permutation(T, uint64_t(number_after(spec, 12))));
  if (spec.rfind("head:", 0) == 0) return head_pattern(spec, analysis);
  if (ends_with(spec, ".npy") || ends_with(spec, ".csv")) return pattern_file(spec, T);
  throw InputError("unknown pattern '" + spec + "'" + did_you_mean(spec, {"previous", "first", "permutation"}) +
                   "; expected previous, first, token:N, permutation:SEED, head:LAYER:HEAD or a .npy / .csv file");
}

std::string pattern_title(const std::string& spec, const RunAnalysis& analysis) {
  if (spec == "previous") return "previous token";
  if (spec == "first") return "first token";
  if (spec.rfind("token:", 0) == 0) {
    const size_t n = size_t(std::atoi(spec.c_str() + 6));
    return "token " + std::to_string(n) + (n < analysis.run.tokens.size() ? " '" + analysis.run.tokens[n] + "'" : "");
  }
  if (spec.rfind("permutation", 0) == 0) return "random permutation" + (spec.size() > 12 ? " (seed " + spec.substr(12) + ")" : "");
  if (spec.rfind("head:", 0) == 0) {
    const size_t colon = spec.find(':', 5);
    return "L" + spec.substr(5, colon - 5) + " h" + spec.substr(colon + 1) + "'s map";
  }
  return spec;
}

}  // namespace hs
