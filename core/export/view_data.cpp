#include "core/export/view_data.h"

#include <sstream>

#include "core/analysis/query_profile.h"
#include "core/formats/csv.h"
#include "core/formats/npy.h"
#include "core/util/errors.h"

namespace hs {
namespace {

// The maps one after another, as float32 of shape lead + [rows, cols] (C order).
std::string stacked_npy(const std::vector<const Map*>& maps, std::vector<int64_t> shape) {
  std::vector<float> all;
  for (const Map* m : maps) all.insert(all.end(), m->data(), m->data() + m->size());
  shape.push_back(maps.empty() ? 0 : maps.front()->rows());
  shape.push_back(maps.empty() ? 0 : maps.front()->cols());
  return npy_bytes(all.data(), shape);
}

std::vector<std::string> csv_fields(const std::vector<std::string>& tokens) {
  std::vector<std::string> fields;
  for (const std::string& t : tokens) fields.push_back(csv_field(t));
  return fields;
}

// One row per cell of m: `prefix` (the leading columns with their comma), row, column, the row's
// token when given, the column's token when given, the value.
void write_tidy_cells(std::ostream& out, const std::string& prefix, const Map& m, const std::vector<std::string>* row_fields,
                      const std::vector<std::string>* col_fields) {
  for (Eigen::Index i = 0; i < m.rows(); ++i) {
    const std::string head = prefix + std::to_string(i) + ',';
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      out << head << j << ',';
      if (row_fields) out << (*row_fields)[size_t(i)] << ',';
      if (col_fields) out << (*col_fields)[size_t(j)] << ',';
      out << csv_number(m(i, j)) << '\n';
    }
  }
}

std::vector<Map> query_profiles(const AttentionRun& run, const std::vector<int>& layers, const std::vector<int>& queries) {
  std::vector<Map> profiles;  // [layer] -> [H, T]
  for (int l : layers) profiles.push_back(query_profile(run, l, queries));
  return profiles;
}

std::vector<const Map*> pointers(const std::vector<Map>& maps) {
  std::vector<const Map*> p;
  for (const Map& m : maps) p.push_back(&m);
  return p;
}

// [H, k] singular values of `layer`'s heads.
Map spectrum_table(const RunAnalysis& analysis, int layer) {
  const std::vector<HeadSpectrum>& heads = analysis.spectrum[size_t(layer)];
  const Eigen::Index k = heads.empty() ? 0 : heads.front().singular_values.size();
  Map t(Eigen::Index(heads.size()), k);
  for (size_t h = 0; h < heads.size(); ++h) t.row(Eigen::Index(h)) = heads[h].singular_values.transpose();
  return t;
}

}  // namespace

void check_tidy_csv_rows(int64_t rows) {
  if (rows <= kMaxTidyCsvRows) return;
  throw InputError("the tidy CSV would have " + std::to_string(rows) + " rows (one per cell; at most " +
                   std::to_string(kMaxTidyCsvRows) + ", about 1 GB): give --layer L or --head H, or write .npy");
}

std::vector<int> exported_layers(int n_layers, bool every_layer, int layer) {
  if (!every_layer) return {layer};
  std::vector<int> all;
  for (int l = 0; l < n_layers; ++l) all.push_back(l);
  return all;
}

std::string layers_attention_npy(const AttentionRun& run, const std::vector<int>& layers) {
  std::vector<const Map*> maps;
  for (int l : layers)
    for (const Map& a : run.attention[size_t(l)]) maps.push_back(&a);
  return stacked_npy(maps, {int64_t(layers.size()), int64_t(run.n_heads())});
}

std::string attention_tidy_csv(const AttentionRun& run, const std::vector<int>& layers, int head) {
  const int64_t T = run.n_tokens();
  check_tidy_csv_rows(int64_t(layers.size()) * (head >= 0 ? 1 : run.n_heads()) * T * T);
  std::ostringstream out;
  out << "layer,head,query,key,query_token,key_token,weight\n";
  const std::vector<std::string> tokens = csv_fields(run.tokens);
  for (int l : layers)
    for (int h = 0; h < run.n_heads(); ++h)
      if (head < 0 || h == head)
        write_tidy_cells(out, std::to_string(l) + ',' + std::to_string(h) + ',', run.attention[size_t(l)][size_t(h)],
                         &tokens, &tokens);
  return out.str();
}

std::string average_npy(const RunAnalysis& analysis, const std::vector<int>& layers) {
  std::vector<const Map*> maps;
  for (int l : layers) maps.push_back(&analysis.average[size_t(l)]);
  return stacked_npy(maps, {int64_t(layers.size())});
}

std::string average_tidy_csv(const RunAnalysis& analysis, const std::vector<int>& layers) {
  const int64_t T = analysis.run.n_tokens();
  check_tidy_csv_rows(int64_t(layers.size()) * T * T);
  std::ostringstream out;
  out << "layer,query,key,query_token,key_token,weight\n";
  const std::vector<std::string> tokens = csv_fields(analysis.run.tokens);
  for (int l : layers) write_tidy_cells(out, std::to_string(l) + ',', analysis.average[size_t(l)], &tokens, &tokens);
  return out.str();
}

std::string query_npy(const AttentionRun& run, const std::vector<int>& layers, const std::vector<int>& queries) {
  const std::vector<Map> profiles = query_profiles(run, layers, queries);
  return stacked_npy(pointers(profiles), {int64_t(layers.size())});
}

std::string query_tidy_csv(const AttentionRun& run, const std::vector<int>& layers, const std::vector<int>& queries) {
  const std::vector<Map> profiles = query_profiles(run, layers, queries);
  std::ostringstream out;
  out << "layer,head,key,key_token,weight\n";
  const std::vector<std::string> tokens = csv_fields(run.tokens);
  for (size_t k = 0; k < layers.size(); ++k) write_tidy_cells(out, std::to_string(layers[k]) + ',', profiles[k], nullptr, &tokens);
  return out.str();
}

std::string spectrum_npy(const RunAnalysis& analysis, const std::vector<int>& layers) {
  std::vector<Map> tables;
  for (int l : layers) tables.push_back(spectrum_table(analysis, l));
  return stacked_npy(pointers(tables), {int64_t(layers.size())});
}

std::string spectrum_tidy_csv(const RunAnalysis& analysis, const std::vector<int>& layers) {
  std::ostringstream out;
  out << "layer,head,index,singular_value\n";
  for (int l : layers) write_tidy_cells(out, std::to_string(l) + ',', spectrum_table(analysis, l), nullptr, nullptr);
  return out.str();
}

std::string ablation_npy(const HeadAblation& ablation) { return stacked_npy({&ablation.delta_loss}, {}); }

std::string ablation_tidy_csv(const HeadAblation& ablation) {
  std::ostringstream out;
  out << "layer,head,delta_loss\n";
  write_tidy_cells(out, "", ablation.delta_loss, nullptr, nullptr);
  return out.str();
}

}  // namespace hs
