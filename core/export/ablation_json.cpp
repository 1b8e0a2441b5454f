#include "core/export/ablation_json.h"

#include <algorithm>

#include "core/formats/json_text.h"

namespace hs {
namespace {

// "measure": "mean_loss" or {"position": P, "token_id": id, "token": label, "pieces": n}.
void write_ablation_measure(std::ostream& out, const AblationAnswer& a) {
  out << "\"measure\":";
  if (a.target.is_mean_loss()) {
    out << "\"mean_loss\"";
    return;
  }
  out << "{\"position\":" << a.target.position << ",\"token_id\":" << a.target.token_id << ",\"token\":" << json_string(a.target_token)
      << ",\"pieces\":" << std::max(1, a.target_pieces) << '}';
}

// The keys every ablation writes first: mode, measure, tokens, reference, notes.
void write_ablation_header(std::ostream& out, const AblationAnswer& a, AblationMode mode) {
  out << "{\"mode\":" << json_string(ablation_mode_name(mode)) << ',';
  write_ablation_measure(out, a);
  out << ",\"token_ids\":[";
  for (size_t i = 0; i < a.ids.size(); ++i) out << (i ? "," : "") << a.ids[i];
  out << "],\"tokens\":[";
  for (size_t i = 0; i < a.tokens.size(); ++i) out << (i ? "," : "") << json_string(a.tokens[i]);
  out << ']';
  if (a.reference.lines > 0) {
    const ReferenceLineCounts& r = a.reference;
    out << ",\"reference\":{\"lines\":" << r.lines << ",\"used\":" << r.used << ",\"skipped\":" << r.skipped()
        << ",\"blank\":" << r.blank << ",\"invalid_utf8\":" << r.invalid_utf8 << ",\"too_long\":" << r.too_long
        << ",\"tokens\":" << r.tokens << '}';
  }
  out << ",\"notes\":[";
  for (size_t i = 0; i < a.notes.size(); ++i) out << (i ? "," : "") << json_string(a.notes[i]);
  out << ']';
}

void write_each_head_ablation_json(std::ostream& out, const AblationAnswer& answer) {
  const HeadAblation& a = *answer.heads;
  write_ablation_header(out, answer, a.mode);
  out << ",\"base_loss\":";
  write_json_float(out, float(a.base_loss));
  out << ",\"base_logprob\":";
  write_json_vector(out, a.base_logprob);
  // measure_only (a target's row of logits alone): no loss change nor per-token change per head.
  if (!a.measure_only) {
    out << ",\"delta_loss\":";
    write_json_matrix(out, a.delta_loss);
  }
  out << ",\"base_measure\":";
  write_json_float(out, float(a.base_measure));
  out << ",\"delta_measure\":";
  write_json_matrix(out, a.delta_measure);
  if (!a.measure_only) {
    out << ",\"delta_logprob\":[";
    for (int l = 0; l < a.n_layers(); ++l) {
      out << (l ? "," : "") << '[';
      for (int h = 0; h < a.n_heads(); ++h) {
        if (h) out << ',';
        write_json_vector(out, a.delta_logprob[size_t(l)][size_t(h)]);
      }
      out << ']';
    }
    out << ']';
  }
  out << ",\"compute_ms\":";
  write_json_float(out, float(a.compute_ms));
  out << "}\n";
}

void write_group_ablation_json(std::ostream& out, const AblationAnswer& answer) {
  const GroupAblation& g = *answer.group;
  write_ablation_header(out, answer, g.mode);
  out << ",\"knock_out\":[";
  for (size_t i = 0; i < g.heads.size(); ++i) out << (i ? "," : "") << '[' << g.heads[i].layer << ',' << g.heads[i].head << ']';
  out << "],\"base_loss\":";
  write_json_float(out, float(g.base_loss));
  out << ",\"delta_loss\":";
  write_json_float(out, float(g.delta_loss));
  out << ",\"base_measure\":";
  write_json_float(out, float(g.base_measure));
  out << ",\"delta_measure\":";
  write_json_float(out, float(g.delta_measure));
  out << ",\"base_logprob\":";
  write_json_vector(out, g.base_logprob);
  out << ",\"delta_logprob\":";
  write_json_vector(out, g.delta_logprob);
  out << ",\"compute_ms\":";
  write_json_float(out, float(g.compute_ms));
  out << "}\n";
}

}  // namespace

void write_ablation_json(std::ostream& out, const AblationAnswer& answer) {
  if (answer.group) write_group_ablation_json(out, answer);
  else write_each_head_ablation_json(out, answer);
}

}  // namespace hs
