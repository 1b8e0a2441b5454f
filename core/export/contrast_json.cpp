#include "core/export/contrast_json.h"

#include <cmath>
#include <cstdio>

#include "core/formats/json_text.h"
#include "core/model/next_token_rows.h"

namespace hs {
namespace {

void write_side(std::ostream& out, const AttentionRun& run) {
  out << "{\"tokens\":";
  write_json_list(out, run.tokens.size(), [&](size_t i) { out << json_string(run.tokens[i]); });
  out << ",\"token_ids\":";
  write_json_list(out, run.token_ids.size(), [&](size_t i) { out << run.token_ids[i]; });
  out << ",\"next_tokens\":";
  write_json_list(out, run.next_tokens.size(), [&](size_t i) { out << json_string(next_token_label(run, int(i))); });
  out << ",\"last_token_log_prob\":";
  write_json_float(out, run.last_token_log_prob);
  out << ",\"next_token_log_prob\":";
  write_json_float(out, run.next_token_log_prob);
  out << '}';
}

void write_maps(std::ostream& out, const ModelMaps& maps) {
  write_json_list(out, maps.size(), [&](size_t l) {
    write_json_list(out, maps[l].size(), [&](size_t h) {
      out << '\n';
      write_json_matrix(out, maps[l][h]);
    });
  });
}

void write_json_double(std::ostream& out, double v) {
  if (!std::isfinite(v)) {
    out << "null";
    return;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  out << buf;
}

// The logit difference and, when run, activation patching (core/analysis/pair_target.h).
void write_answer(std::ostream& out, const PairAnswer& p) {
  out << ",\n\"target\":" << json_string(p.question.target) << ",\"versus\":" << json_string(p.question.versus)
      << ",\"target_id\":" << p.ids.target << ",\"versus_id\":" << p.ids.versus << ",\"target_token\":" << json_string(p.target_token)
      << ",\"versus_token\":" << json_string(p.versus_token) << ",\"target_pieces\":" << p.target_pieces
      << ",\"versus_pieces\":" << p.versus_pieces << ",\n\"logit_diff\":{\"a\":";
  write_json_double(out, p.logit_diff_a);
  out << ",\"b\":";
  write_json_double(out, p.logit_diff_b);
  out << "},\n\"notes\":";
  write_json_list(out, p.notes.size(), [&](size_t i) { out << json_string(p.notes[i]); });
  if (!p.patching) return;
  const HeadPatching& h = *p.patching;
  out << ",\n\"patching\":";
  write_json_matrix(out, h.share);
  out << ",\n\"patched_logit_diff\":";
  write_json_matrix(out, h.logit_diff);
  out << ",\n\"patched_positions\":";
  write_json_list(out, h.positions.size(), [&](size_t i) { out << '[' << h.positions[i].first << ',' << h.positions[i].second << ']'; });
  out << ",\"patching_complete\":" << (h.complete ? "true" : "false");
}

void write_pair_model_info(std::ostream& out, const std::string& path, const ModelInfo& m) {
  out << "{\"path\":" << json_string(path) << ",\"name\":" << json_string(m.name) << ",\"kind\":" << json_string(m.kind)
      << ",\"family\":" << json_string(m.family) << ",\"weight_types\":" << json_string(m.weight_types)
      << ",\"n_layers\":" << m.n_layers << ",\"n_heads\":" << m.n_heads << ",\"d_model\":" << m.d_model << '}';
}

// Two models on one input: which, what was compared, and the next-token agreement.
void write_model_pair(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ModelComparison& m) {
  out << ",\n\"model_a\":";
  write_pair_model_info(out, m.path_a, a.run.info);
  out << ",\n\"model_b\":";
  write_pair_model_info(out, m.path_b, b.run.info);
  out << ",\n\"same_file\":" << (m.same_file ? "true" : "false") << ",\"shared_layers\":" << m.shared_layers
      << ",\"shared_heads\":" << m.shared_heads << ",\n\"comparison_notes\":";
  write_json_list(out, m.notes.size(), [&](size_t i) { out << json_string(m.notes[i]); });
  const NextTokenAgreement& n = m.next_token;
  const bool measured = n.positions > 0;
  out << ",\n\"next_token\":{\"positions\":" << n.positions << ",\"top1_matches\":" << n.top1_matches << ",\"top1_match_rate\":";
  write_json_double(out, measured ? n.match_rate : NAN);
  out << ",\"mean_kl\":";
  write_json_double(out, measured ? n.mean_kl : NAN);
  out << ",\"max_kl\":";
  write_json_double(out, measured ? n.max_kl : NAN);
  out << ",\"max_kl_position\":" << n.max_kl_position << '}';
}

}  // namespace

void write_contrast_json(std::ostream& out, const RunAnalysis& a, const RunAnalysis& b, const ContrastResult& contrast,
                         const PairAnswer* answer, const ModelComparison* models) {
  out << "{\"mode\":" << (contrast.models ? "\"models\"" : "\"sentences\"");
  if (models) write_model_pair(out, a, b, *models);
  out << ",\n\"a\":";
  write_side(out, a.run);
  out << ",\n\"b\":";
  write_side(out, b.run);
  out << ",\n\"alignment\":";
  write_json_list(out, contrast.alignment.steps.size(), [&](size_t i) {
    const AlignStep& s = contrast.alignment.steps[i];
    out << "{\"op\":\"" << align_op_name(s.op) << "\",\"a\":";
    if (s.a >= 0) out << s.a;
    else out << "null";
    out << ",\"b\":";
    if (s.b >= 0) out << s.b;
    else out << "null";
    out << '}';
  });
  out << ",\n\"first_query_step\":" << contrast.first_query_step << ",\"query_rows\":" << contrast.query_rows;
  if (answer) write_answer(out, *answer);
  out << ",\n\"heads\":";
  const std::vector<std::vector<int>> ranks = change_ranks(contrast);
  write_json_list(out, contrast.heads.size(), [&](size_t l) {
    write_json_list(out, contrast.heads[l].size(), [&](size_t h) {
      const HeadChange& c = contrast.heads[l][h];
      out << "{\"distance\":";
      write_json_float(out, c.distance);
      out << ",\"rank\":" << ranks[l][h] << ",\"max_row\":";
      write_json_float(out, c.max_row);
      out << ",\"max_row_step\":" << c.max_row_step << ",\"weight_on_changed_a\":";
      write_json_float(out, c.changed_a);
      out << ",\"weight_on_changed_b\":";
      write_json_float(out, c.changed_b);
      out << '}';
    });
  });
  out << ",\n\"attention_a\":";
  write_maps(out, a.run.attention);
  out << ",\n\"attention_b\":";
  write_maps(out, b.run.attention);
  out << "}\n";
}

void write_contrast_csv(std::ostream& out, const ContrastResult& contrast, const HeadPatching* patching) {
  const std::vector<std::vector<int>> ranks = change_ranks(contrast);
  out << "layer,head,distance,max_row,max_row_query_a,max_row_query_b,weight_on_changed_a,weight_on_changed_b,rank"
      << (patching ? ",patching,patched_logit_diff\n" : "\n");
  for (size_t l = 0; l < contrast.heads.size(); ++l) {
    for (size_t h = 0; h < contrast.heads[l].size(); ++h) {
      const HeadChange& c = contrast.heads[l][h];
      const AlignStep* s = c.max_row_step >= 0 ? &contrast.alignment.steps[size_t(c.max_row_step)] : nullptr;
      out << l << ',' << h << ',';
      write_json_float(out, c.distance);
      out << ',';
      write_json_float(out, c.max_row);
      out << ',' << (s ? s->a : -1) << ',' << (s ? s->b : -1) << ',';
      write_json_float(out, c.changed_a);
      out << ',';
      write_json_float(out, c.changed_b);
      out << ',' << ranks[l][h];
      if (patching) {  // a null share as an empty cell
        const float share = patching->share(Eigen::Index(l), Eigen::Index(h)), ld = patching->logit_diff(Eigen::Index(l), Eigen::Index(h));
        out << ',';
        if (std::isfinite(share)) write_json_float(out, share);
        out << ',';
        if (std::isfinite(ld)) write_json_float(out, ld);
      }
      out << '\n';
    }
  }
}

}  // namespace hs
