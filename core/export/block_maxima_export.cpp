#include "core/export/block_maxima_export.h"

#include <filesystem>
#include <sstream>

#include "core/formats/json_text.h"

namespace hs {

std::string block_maxima_label(const AttentionRun& run) {
  const std::string f = std::to_string(run.map_factor);
  return "block maximum of " + f + " x " + f + " cells";
}

RunAnalysis block_maxima_run(const RunAnalysis& analysis) {
  RunAnalysis r;
  const AttentionRun& run = analysis.run;
  r.run.tokens = analysis.map_labels;
  r.run.info = run.info;
  const std::string f = std::to_string(run.map_factor);
  const std::string name = run.info.name.empty() ? run.info.kind : run.info.name;
  r.run.info.name = name + " (block maxima of " + f + " x " + f + " tokens)";
  r.run.info.window = -1;
  r.run.info.layer_windows.clear();
  r.run.attention = run.attention;  // [layer][head] [P, P] block maxima
  r.long_input_reason = analysis.long_input_reason;
  return r;
}

std::string block_maxima_sidecar_path(const std::string& npy_path) {
  std::filesystem::path p(npy_path);
  p.replace_extension(".blocks.json");
  return p.string();
}

std::string block_maxima_sidecar_json(const RunAnalysis& analysis) {
  const AttentionRun& run = analysis.run;
  const int p = run.attention.empty() || run.attention[0].empty() ? 0 : int(run.attention[0][0].rows());
  std::ostringstream out;
  out << "{\"block_maxima\":true,\"what\":" << json_string(block_maxima_label(run)) << ",\"block_size\":" << run.map_factor
      << ",\"tokens\":" << run.n_tokens() << ",\"display_size\":" << p
      << ",\"reason\":" << json_string(analysis.long_input_reason) << ",\"block_labels\":[";
  for (size_t i = 0; i < analysis.map_labels.size(); ++i) out << (i ? "," : "") << json_string(analysis.map_labels[i]);
  out << "]}\n";
  return out.str();
}

}  // namespace hs
