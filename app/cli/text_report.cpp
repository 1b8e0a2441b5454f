#include "app/cli/text_report.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "core/util/utf8.h"
#include "core/util/errors.h"

namespace hs::cli {
namespace {

// A label padded or cut to `width` code points, so columns line up for non-ASCII tokens.
std::string padded_cell(const std::string& text, size_t width) {
  std::string s = utf8_length(text) > width ? utf8_prefix(text, width - 1) + "~" : text;
  for (size_t n = utf8_length(s); n < width; ++n) s += ' ';
  return s;
}

std::string num(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", static_cast<double>(v));
  return buf;
}

void check_layer_and_query(const AttentionRun& run, int layer, int query) {
  if (layer < 0 || layer >= run.n_layers()) {
    throw InputError("--layer " + std::to_string(layer) + " is out of range: the model has " +
                     std::to_string(run.n_layers()) + " layer(s), 0.." + std::to_string(run.n_layers() - 1));
  }
  if (query < 0 || query >= run.n_tokens()) {
    throw InputError("--query " + std::to_string(query) + " is out of range: the input has " +
                     std::to_string(run.n_tokens()) + " tokens, 0.." + std::to_string(run.n_tokens() - 1));
  }
}

void print_model_line(std::ostream& out, const AttentionRun& run) {
  const ModelInfo& c = run.info;
  if (c.kind == "attention-file") {
    out << "maps from a file: " << c.name << "  (" << c.n_layers << " layer(s) x " << c.n_heads << " heads"
        << (c.causal ? ", causal" : "") << "; no weights: no next tokens, scores or head-count sweep)\n";
    for (const std::string& note : run.notes) out << "note: " << note << "\n";
    out << "\n";
    return;
  }
  out << "model: " << c.name << "  (" << c.n_layers << " layer(s), " << c.n_heads << " heads of width " << c.d_head;
  if (c.n_kv_heads != c.n_heads) out << ", " << c.n_kv_heads << " key/value heads";
  if (c.causal) out << ", causal";
  if (c.window >= 0) out << ", window " << c.window;
  out << ")\n";
  out << "parameters in one attention layer: " << c.param_count << "\n";
  for (const std::string& note : run.notes) out << "note: " << note << "\n";
  out << "\n";
}

// Per head: how many keys some query can make its top key (and which), and the query rows that
// rank their visible keys as the last query does (or reversed): the head-width limit in numbers.
void print_reach(std::ostream& out, const RunAnalysis& analysis, int layer) {
  if (size_t(layer) >= analysis.reach.size()) return;
  const AttentionRun& run = analysis.run;
  out << "\nkeys a query can make its top key, and rows that rank their keys as the last row does (or reversed), "
         "layer "
      << layer << " (width " << run.info.d_head << "):\n";
  for (size_t h = 0; h < analysis.reach[size_t(layer)].size(); ++h) {
    const HeadReach& r = analysis.reach[size_t(layer)][h];
    out << padded_cell("head " + std::to_string(h), 8) << r.reachable_keys.size() << " of " << run.n_tokens() << " keys reachable";
    if (r.ranked_rows > 0) out << ", rows agree " << r.agreeing_rows << " of " << r.ranked_rows;
    out << "  keys";
    for (int j : r.reachable_keys) out << "  " << j << ":" << run.tokens[size_t(j)];
    out << "\n";
  }
}

}  // namespace

void print_text_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query) {
  const AttentionRun& run = analysis.run;
  check_layer_and_query(run, layer, query);
  print_model_line(out, run);

  out << "tokens (" << run.n_tokens() << "):";
  for (int t = 0; t < run.n_tokens(); ++t) out << "  " << t << ":" << run.tokens[size_t(t)];
  out << "\n";
  if (run.segment_b_start >= 0) out << "sentence B starts at token " << run.segment_b_start << "\n";
  out << "\n";

  const LayerMaps& heads = run.attention[size_t(layer)];
  const size_t w = 7;
  out << "where token " << query << " (" << run.tokens[size_t(query)] << ") looks, head by head (layer " << layer << "):\n";
  out << padded_cell("", 8);
  for (const auto& t : run.tokens) out << padded_cell(t, w) << ' ';
  out << "\n";
  for (size_t h = 0; h < heads.size(); ++h) {
    out << padded_cell("head " + std::to_string(h), 8);
    for (int j = 0; j < run.n_tokens(); ++j) out << padded_cell(num(heads[h](query, j)), w) << ' ';
    out << "\n";
  }

  const auto table = [&](const Map& m, const std::string& title) {  // [H, H]
    out << "\n" << title << " (layer " << layer << "):\n" << padded_cell("", 8);
    for (size_t h = 0; h < heads.size(); ++h) out << padded_cell("head " + std::to_string(h), w) << ' ';
    out << "\n";
    for (Eigen::Index a = 0; a < m.rows(); ++a) {
      out << padded_cell("head " + std::to_string(a), 8);
      for (Eigen::Index b = 0; b < m.cols(); ++b) out << padded_cell(num(m(a, b)), w) << ' ';
      out << "\n";
    }
  };
  table(analysis.distance[size_t(layer)],
        "head difference: the head distance, mean over queries of the total variation 0.5 sum_k |A_a - A_b| (0 to 1)");
  print_reach(out, analysis, layer);
  if (!run.next_tokens.empty()) {
    out << "\nnext-token prediction after each position:\n";
    for (int t = 0; t < run.n_tokens(); ++t) out << "  " << t << ":" << run.tokens[size_t(t)] << " -> " << run.next_tokens[size_t(t)] << "\n";
  }
}

std::string significant(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", static_cast<double>(v));
  return buf;
}

std::string display_size_note(const RunAnalysis& analysis, int asked) {
  const AttentionRun& run = analysis.run;
  const int p = run.attention.empty() || run.attention[0].empty() ? 0 : int(run.attention[0][0].rows());
  if (asked <= 0 || p == asked || !run.compact()) return "";
  const int T = run.n_tokens(), f = run.map_factor;
  return "--display-size " + std::to_string(asked) + " holds " + std::to_string(p) + " x " + std::to_string(p) +
         " cells: each cell is a whole block of " + std::to_string(f) + " x " + std::to_string(f) + " tokens, and " +
         std::to_string(T) + " tokens in blocks of " + std::to_string(f) + " make " + std::to_string(p);
}

void print_compact_report(std::ostream& out, const RunAnalysis& analysis, int layer, int query, int display_size_asked) {
  const AttentionRun& run = analysis.run;
  check_layer_and_query(run, layer, query);
  print_model_line(out, run);
  const int T = run.n_tokens(), f = run.map_factor;
  const int p = run.attention.empty() || run.attention[0].empty() ? 0 : int(run.attention[0][0].rows());
  out << "tokens: " << T << " (long-input mode, " << analysis.long_input_reason << ": each head kept as " << p << " x " << p
      << " block maxima of " << f << " x " << f << " cells; the numbers below are exact)\n";
  if (const std::string note = display_size_note(analysis, display_size_asked); !note.empty()) out << "note: " << note << "\n";
  out << "\n";
  const size_t top = size_t(std::min(5, T));
  out << "layer " << layer << ", where token " << query << " (" << run.tokens[size_t(query)]
      << ") looks: each head's mean row entropy (nats), largest weight, and its " << top << " strongest keys\n";
  for (int h = 0; h < run.n_heads(); ++h) {
    const HeadNumbers& n = run.head_numbers[size_t(layer)][size_t(h)];
    const Vec row = run.exact->row(layer, h, query);  // [T]
    std::vector<int> keys(static_cast<size_t>(T));
    for (int j = 0; j < T; ++j) keys[size_t(j)] = j;
    std::partial_sort(keys.begin(), keys.begin() + long(top), keys.end(),
                      [&](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
    out << padded_cell("head " + std::to_string(h), 8) << "entropy " << num(n.mean_entropy) << "  max " << significant(n.max) << "  keys";
    for (size_t k = 0; k < top; ++k) out << "  " << keys[k] << ":" << run.tokens[size_t(keys[k])] << "=" << significant(row[keys[k]]);
    out << "\n";
  }
}

}  // namespace hs::cli
